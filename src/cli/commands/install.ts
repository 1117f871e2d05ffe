import { runInstallCli, USAGE as usageFor } from '../../install/cli.js';

export const USAGE = usageFor('install');

export async function run(argv: string[]): Promise<number> {
  return runInstallCli('install', argv);
}
