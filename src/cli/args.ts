/** Shared argument parsing for subcommands: `--flag value`, `--flag=value`, boolean `--flag`, positionals. */
import { parseArgs } from 'node:util';

export type Flags = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

export function parseFlags<T extends Flags>(argv: string[], options: T) {
  return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
}
