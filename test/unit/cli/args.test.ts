import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFlags, UsageError, wholeNumber } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { parseTime } from '../../../src/cli/time.js';
import { paths } from '../../../src/io/paths.js';
import { runCaptured } from '../../support/cli.js';

const OPTIONS = {
  limit: { type: 'string' },
  since: { type: 'string', short: 's' },
  json: { type: 'boolean' },
} as const;

describe('parseFlags', () => {
  it('takes a dash-leading number after a string option the same way as --flag=value', () => {
    for (const v of ['-1', '-0', '-.5', '-7d', '-2024-01-01']) {
      expect(parseFlags(['--limit', v], OPTIONS).values.limit).toBe(v);
      expect(parseFlags([`--limit=${v}`], OPTIONS).values.limit).toBe(v);
      expect(parseFlags(['-s', v], OPTIONS).values.since).toBe(v);
    }
    const mixed = parseFlags(['--json', '--limit', '-3', 'pos', '--since', '-1d'], OPTIONS);
    expect(mixed.values).toEqual({ json: true, limit: '-3', since: '-1d' });
    expect(mixed.positionals).toEqual(['pos']);
    // Past `--` nothing is joined; a boolean flag never takes the next token.
    expect(parseFlags(['--', '--limit', '-1'], OPTIONS).positionals).toEqual(['--limit', '-1']);
    expect(() => parseFlags(['--json', '-1'], OPTIONS)).toThrow(UsageError);
  });

  it('turns every parseArgs refusal into a UsageError with a one-line message', () => {
    const message = (argv: string[], positionals = true): string => {
      try {
        parseFlags(argv, OPTIONS, positionals);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
      throw new Error(`parsed ${argv.join(' ')}`);
    };
    expect(message(['--limit'])).toBe('--limit needs a value');
    expect(message(['--limit', '--json'])).toBe('--limit needs a value');
    expect(message(['--limit', '-x'])).toBe('--limit needs a value');
    expect(message(['--bogus'])).toBe("unknown option '--bogus'");
    expect(message(['--jsn'])).toBe("unknown option '--jsn': did you mean '--json'?");
    expect(message(['--json=1'])).toBe("Option '--json' does not take an argument");
    expect(message(['extra'], false)).toBe("unexpected argument 'extra'");
    for (const m of [message(['--limit']), message(['--bogus'])]) expect(m).not.toMatch(/\n|TypeError/);
  });

  it('wholeNumber and parseTime refuse dash-leading values', () => {
    expect(wholeNumber('10')).toBe(10);
    expect(wholeNumber('0')).toBe(0);
    for (const bad of ['-1', '-0', '1.5', 'ten', '', ' 3', '1e3', '99999999999999999999'])
      expect(wholeNumber(bad)).toBeUndefined();
    const now = Date.parse('2026-11-20T00:00:00Z');
    expect(parseTime('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseTime('2026-01-02', now, 'UTC')).toBe(Date.parse('2026-01-02T00:00:00Z'));
    // Date.parse alone would read '-1' as 2001-01-01 and '-2024-01-01' as 2024.
    for (const bad of ['-1', '-7d', '-7', '-2024-01-01', ' -1', '7', '2024', ' 30 '])
      expect(parseTime(bad, now)).toBeUndefined();
    expect(parseTime('20260102', now, 'UTC')).toBe(Date.parse('2026-01-02T00:00:00Z'));
  });
});

describe('numeric flags on the command line', () => {
  let home: string;
  let out: string;
  let err: string;
  /** main(argv) in a fresh TIERGATE_HOME (and cwd), keeping what it printed in out and err. */
  const cli = async (argv: string[]): Promise<number> => {
    const r = await runCaptured(main, argv, { TIERGATE_HOME: home }, home);
    ({ out, err } = r);
    return r.code;
  };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'tiergate-args-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it('report --limit -1 (either spelling) is a usage error with exit 2, not a thrown TypeError', async () => {
    for (const argv of [['--limit', '-1'], ['--limit=-1'], ['--limit', '-5'], ['--limit', 'ten'], ['--limit', '1.5']]) {
      expect(await cli(['report', '--no-drain', ...argv])).toBe(2);
      const value = argv.length === 1 ? argv[0]!.slice('--limit='.length) : argv[1]!;
      expect(err).toBe(
        `tiergate report: --limit takes a whole number, 0 or more (got '${value}'). Run 'tiergate report --help' for its options.\n`,
      );
      expect(err).not.toMatch(/TypeError|ambiguous|\n\s+at /);
    }
    expect(await cli(['report', '--no-drain', '--limit'])).toBe(2);
    expect(err).toBe("tiergate report: --limit needs a value. Run 'tiergate report --help' for its options.\n");
    expect(out).toBe('');
  });

  it('report and scan read a dash-leading --since/--until the same way and refuse it', async () => {
    for (const argv of [
      ['report', '--no-drain', '--since', '-7d'],
      ['report', '--no-drain', '--since=-1'],
      ['scan', '--since', '-1'],
    ]) {
      expect(await cli(argv)).toBe(2);
      expect(err).toMatch(
        new RegExp(
          `^tiergate ${argv[0]}: cannot read --since '-(7d|1)' \\(a day like 2026-03-01, .*\\)\\. Run 'tiergate ${argv[0]} --help' for its options\\.\\n$`,
        ),
      );
    }
    expect(await cli(['report', '--no-drain', '--until', '-1'])).toBe(2);
    expect(err).toContain("tiergate report: cannot read --until '-1'");
  });

  it('an unknown option is a usage error (exit 2), and writes no error diagnostic', async () => {
    expect(await cli(['report', '--bogus'])).toBe(2);
    expect(err).toBe("tiergate report: unknown option '--bogus'. Run 'tiergate report --help' for its options.\n");
    expect(await cli(['demo', '--limit', '-1'])).toBe(2);
    expect(err).toMatch(/^tiergate demo: unknown option '--limit'/);
    expect(await cli(['doctor', '--jsn'])).toBe(2);
    expect(err).toBe(
      "tiergate doctor: unknown option '--jsn': did you mean '--json'? Run 'tiergate doctor --help' for its options.\n",
    );
    expect(await cli(['explain', '--parent', '-1', '--harness'])).toBe(2);
    expect(err).toBe("tiergate explain: --harness needs a value. Run 'tiergate explain --help' for its options.\n");
    const log = paths({ TIERGATE_HOME: home }).diagnostics;
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').not.toMatch(/"where":"cli:/);
  });

  it('report --limit 0 still shows everything (exit 0) on an empty ledger', async () => {
    expect(await cli(['report', '--no-drain', '--limit', '0', '--json'])).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ rows: [] });
    expect(err).toBe('');
  });
});
