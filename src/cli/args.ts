/** Shared argument parsing for subcommands: `--flag value`, `--flag=value`, boolean `--flag`, positionals. */
import { parseArgs } from 'node:util';

export type Flags = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string; default?: string | boolean }>;

type Config<T extends Flags> = { args: string[]; options: T; allowPositionals: true; strict: true };
export type ParsedFlags<T extends Flags> = ReturnType<typeof parseArgs<Config<T>>>;

/** A command line that does not fit a command's options: a typo, not a failure, so it exits 2 with the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A value that starts with a dash but is a number or a relative time (`-1`, `-.5`, `-7d`), never an option name. */
const DASH_VALUE = /^-[\d.]/;

/**
 * node's parseArgs refuses `--limit -1` ("argument is ambiguous") but takes `--limit=-1`. Rewrite the first form into the
 * second for string options, so a dash-leading number reaches the command's own check whichever way it was written.
 */
function joinDashValues(argv: readonly string[], options: Flags): string[] {
  const stringShorts = new Set(Object.values(options).filter((o) => o.type === 'string' && o.short).map((o) => o.short));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    const isStringFlag = (a.startsWith('--') && !a.includes('=') && options[a.slice(2)]?.type === 'string')
      || (/^-[^-]$/.test(a) && stringShorts.has(a.slice(1)));
    if (isStringFlag && next !== undefined && DASH_VALUE.test(next)) {
      out.push(a.startsWith('--') ? `${a}=${next}` : `${a}${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** What parseArgs says, without its "To specify…" tutorial lines or the TypeError prefix. */
function usageMessage(err: Error): string {
  const needs = /^Option '(-[^' ]+)[^']*' argument (?:is ambiguous|missing)/.exec(err.message);
  if (needs) return `${needs[1]} needs a value`;
  return err.message.split('\n')[0]!.replace(/\. (?:This command does not take positional arguments|To specify a positional argument).*$/, '');
}

/** Parses argv against options; throws UsageError (never parseArgs' TypeError) when the line does not fit. */
export function parseFlags<T extends Flags>(argv: string[], options: T, allowPositionals = true): ParsedFlags<T> {
  try {
    // The type says positionals are allowed; with allowPositionals false parseArgs throws on one instead of returning it.
    return parseArgs({ args: joinDashValues(argv, options), options, allowPositionals: allowPositionals as true, strict: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) throw new UsageError(usageMessage(err as Error));
    throw err;
  }
}

/**
 * parseFlags for a command's run(): on a usage error writes `tiergate <command>: <problem>` and the usage text to stderr
 * and returns null, so the command returns 2 instead of throwing.
 */
export function parseCommandFlags<T extends Flags>(
  command: string, usage: string, argv: string[], options: T, allowPositionals = false,
): ParsedFlags<T> | null {
  try {
    return parseFlags(argv, options, allowPositionals);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    usageError(command, usage, err.message);
    return null;
  }
}

/** Writes a usage problem to stderr and gives the exit code for it (2). */
export function usageError(command: string, usage: string, problem: string): 2 {
  process.stderr.write(`tiergate ${command}: ${problem}\n${usage.endsWith('\n') ? usage : `${usage}\n`}`);
  return 2;
}

/** A whole number, 0 or more, written in decimal digits only (`--limit 10`); anything else is undefined. */
export function wholeNumber(text: string): number | undefined {
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}
