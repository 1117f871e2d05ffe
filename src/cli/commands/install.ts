import { writeEffective } from '../../config/policy-load.js';
import { runInstallCli, USAGE as usageFor } from '../install/run.js';

export const USAGE = usageFor('install');

export async function run(argv: string[]): Promise<number> {
  const code = await runInstallCli('install', argv);
  // The first dispatch hook after an install then reads one file (config/effective-file.ts); a dry run writes nothing.
  if (code === 0 && !argv.includes('--dry-run') && !argv.includes('--help')) writeEffective(process.env);
  return code;
}
