import { runInstallCli } from '../../install/cli.js';

export async function run(argv: string[]): Promise<number> {
  return runInstallCli('uninstall', argv);
}
