import { runInstallCli, USAGE as usageFor } from '../install/run.js';

export const USAGE = usageFor('uninstall');

export async function run(argv: string[]): Promise<number> {
  return runInstallCli('uninstall', argv);
}
