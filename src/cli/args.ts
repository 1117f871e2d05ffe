/** Shared argument parsing for subcommands: `--flag value`, `--flag=value`, boolean `--flag`, positionals. */
import { parseArgs } from 'node:util';
import { closest } from './suggest.js';

export type Flags = Record<
  string,
  { type: 'string' | 'boolean'; multiple?: boolean; short?: string; default?: string | boolean }
>;

type Config<T extends Flags> = { args: string[]; options: T; allowPositionals: true; strict: true };
export type ParsedFlags<T extends Flags> = ReturnType<typeof parseArgs<Config<T>>>;

/** A command line that does not fit a command's options: a typo, not a failure, so it exits 2 with one line. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A request the user can fix that is no fault of tiergate's (a path that is a directory, a file that cannot be
 * written): exit 1 with one line, and nothing in the diagnostic log for `doctor` to warn about.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
}

/** A value that starts with a dash but is a number or a relative time (`-1`, `-.5`, `-7d`), never an option name. */
const DASH_VALUE = /^-[\d.]/;

/**
 * node's parseArgs refuses `--limit -1` ("argument is ambiguous") but takes `--limit=-1`. Rewrite the first form into the
 * second for string options, so a dash-leading number reaches the command's own check whichever way it was written.
 */
function joinDashValues(argv: readonly string[], options: Flags): string[] {
  const stringShorts = new Set(
    Object.values(options)
      .filter((o) => o.type === 'string' && o.short)
      .map((o) => o.short),
  );
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    const isStringFlag =
      (a.startsWith('--') && !a.includes('=') && options[a.slice(2)]?.type === 'string') ||
      (/^-[^-]$/.test(a) && stringShorts.has(a.slice(1)));
    if (isStringFlag && next !== undefined && DASH_VALUE.test(next)) {
      out.push(a.startsWith('--') ? `${a}=${next}` : `${a}${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** What parseArgs says, without its "To specify…" tutorial lines or the TypeError prefix; a typo names the nearest flag. */
function usageMessage(err: Error, options: Flags): string {
  const needs = /^Option '(-[^' ]+)[^']*' argument (?:is ambiguous|missing)/.exec(err.message);
  if (needs) return `${needs[1]} needs a value`;
  const unknown = /^Unknown option '(-[^']*)'/.exec(err.message);
  if (unknown) {
    const near = closest(unknown[1]!.replace(/^-+/, '').replace(/=.*$/, ''), Object.keys(options));
    return `unknown option '${unknown[1]}'${near ? `: did you mean '--${near}'?` : ''}`;
  }
  const positional = /^Unexpected argument '([^']*)'/.exec(err.message);
  if (positional) return `unexpected argument '${positional[1]}'`;
  return err.message
    .split('\n')[0]!
    .replace(/\. (?:This command does not take positional arguments|To specify a positional argument).*$/, '');
}

/** Parses argv against options; throws UsageError (never parseArgs' TypeError) when the line does not fit. */
export function parseFlags<T extends Flags>(argv: string[], options: T, allowPositionals = true): ParsedFlags<T> {
  try {
    // The type says positionals are allowed; with allowPositionals false parseArgs throws on one instead of returning it.
    return parseArgs({
      args: joinDashValues(argv, options),
      options,
      allowPositionals: allowPositionals as true,
      strict: true,
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'))
      throw new UsageError(usageMessage(err as Error, options));
    throw err;
  }
}

/**
 * parseFlags for a command's run(): on a usage error writes the one-line problem (usageError) and returns null, so the
 * command returns 2 instead of throwing. `usage` is the command's help text: `--help` prints it (cli/main.ts), an error
 * only points at it, so a typo costs one line, not a screen.
 */
export function parseCommandFlags<T extends Flags>(
  command: string,
  usage: string,
  argv: string[],
  options: T,
  allowPositionals = false,
): ParsedFlags<T> | null {
  try {
    return parseFlags(argv, options, allowPositionals);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    usageError(command, err.message);
    return null;
  }
}

/** The one line a usage problem gets: what was wrong, and where the options are listed. */
export function usageLine(command: string, problem: string): string {
  return `tiergate ${command}: ${problem}${/[.?!]$/.test(problem) ? '' : '.'} Run 'tiergate ${command} --help' for its options.\n`;
}

/** Writes a usage problem to stderr (one line) and gives the exit code for it (2). */
export function usageError(command: string, problem: string): 2 {
  process.stderr.write(usageLine(command, problem));
  return 2;
}

/** A whole number, 0 or more, written in decimal digits only (`--limit 10`); anything else is undefined. */
export function wholeNumber(text: string): number | undefined {
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}
