/**
 * The command line as a person uses it (issue 21): --version, --help on every command and subcommand in one usage
 * style, "did you mean" for commands, flags and values, every error one line saying what to do, no stack trace and no
 * diagnostic for a user's mistake.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { HARNESS_IDS } from '../../../src/contracts/harness.js';
import { paths } from '../../../src/io/paths.js';
import { runCaptured } from '../../support/cli.js';

const root = join(import.meta.dirname, '../../..');
const VERSION = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

let home: string;
let out: string;
let err: string;
const cli = async (...argv: string[]): Promise<number> => {
  const r = await runCaptured(main, argv, { TIERGATE_HOME: home, NO_COLOR: '1' }, home);
  ({ out, err } = r);
  return r.code;
};
/** One line on stderr, no stack frame, no parseArgs tutorial. */
const oneLine = (text: string) => {
  expect(text.endsWith('\n')).toBe(true);
  expect(text.trimEnd().split('\n')).toHaveLength(1);
  expect(text).not.toMatch(/\n\s+at |TypeError|RangeError|ERR_/);
};
const faults = () => {
  const log = paths({ TIERGATE_HOME: home }).diagnostics;
  return existsSync(log) ? readFileSync(log, 'utf8') : '';
};

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tiergate-conv-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('tiergate --version and help', () => {
  it('--version and -v print the package version', async () => {
    for (const flag of ['--version', '-v']) {
      expect(await cli(flag)).toBe(0);
      expect(out).toBe(`${VERSION}\n`);
    }
  });

  it('`tiergate version` prints the version as --version does; a typo of it gets a suggestion', async () => {
    expect(await cli('version')).toBe(0);
    expect(out).toBe(`${VERSION}\n`);
    expect(await cli('verison')).toBe(2);
    expect(err).toContain("did you mean 'tiergate version'?");
  });

  it('`help --help` and `help -h` show the command list and exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      expect(await cli('help', flag)).toBe(0);
      expect(out).toContain('Commands:');
      expect(err).toBe('');
    }
  });

  it('`demo --help` says what the demo does, not only its flags', async () => {
    expect(await cli('demo', '--help')).toBe(0);
    const text = out.replace(/\n\s*/g, ' ');
    expect(text).toContain('Usage: tiergate demo');
    expect(text).toMatch(/without installing anything/);
    expect(text).toMatch(/temporary ledger, offline/);
    expect(text).toMatch(/--keep/);
  });

  it('help text wraps to COLUMNS at word boundaries: every word of the 400-column text, no line past 80', async () => {
    const wide = await runCaptured(main, ['help'], { TIERGATE_HOME: home, COLUMNS: '400' }, home);
    const narrow = await runCaptured(main, ['help'], { TIERGATE_HOME: home, COLUMNS: '80' }, home);
    expect(Math.max(...wide.out.split('\n').map((l) => l.length))).toBeGreaterThan(80);
    expect(Math.max(...narrow.out.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
    // Same words in the same order: nothing cut inside a word.
    expect(narrow.out.split(/\s+/)).toEqual(wide.out.split(/\s+/));
  });

  it('lists the commands with report first and help last, without the old prices-* names', async () => {
    expect(await cli('help')).toBe(0);
    const commands = out.slice(out.indexOf('Commands:'), out.indexOf('Options for every command'));
    const names = [...commands.matchAll(/^ {2}([a-z-]+) +\S/gm)].map((m) => m[1]);
    expect(names[0]).toBe('report');
    expect(names.at(-1)).toBe('help');
    expect(names).not.toContain('prices-refresh');
    expect(names).not.toContain('prices-status');
    expect(out).toContain('-v, --version');
    expect(await cli()).toBe(0);
    expect(await cli('--help')).toBe(0);
  });

  it('--help works on every command and subcommand, in one usage style, exit 0', async () => {
    const cases: [string[], string][] = [
      [['report'], 'tiergate report'],
      [['scan'], 'tiergate scan'],
      [['explain'], 'tiergate explain'],
      [['prices'], 'tiergate prices <show|list|refresh|status>'],
      [['prices', 'show'], 'tiergate prices show'],
      [['prices', 'list'], 'tiergate prices list'],
      [['prices', 'refresh'], 'tiergate prices refresh'],
      [['prices', 'status'], 'tiergate prices status'],
      [['config'], 'tiergate config check'],
      [['config', 'check'], 'tiergate config check'],
      [['install'], 'tiergate install'],
      [['uninstall'], 'tiergate uninstall'],
      [['doctor'], 'tiergate doctor'],
      [['demo'], 'tiergate demo'],
      // The older names still answer, as the subcommands they now are.
      [['prices-refresh'], 'tiergate prices refresh'],
      [['prices-status'], 'tiergate prices status'],
    ];
    for (const [argv, usage] of cases) {
      for (const help of ['--help', '-h']) {
        expect({ argv, code: await cli(...argv, help) }).toEqual({ argv, code: 0 });
        expect(out.startsWith(`Usage: ${usage}`)).toBe(true);
        expect(err).toBe('');
      }
    }
    // `tiergate help <command>` is the same text; --help anywhere on the line, even after other flags.
    await cli('report', '--help');
    const reportHelp = out;
    expect(await cli('help', 'report')).toBe(0);
    expect(out).toBe(reportHelp);
    expect(await cli('explain', '--parent', 'opus', '--help')).toBe(0);
    expect(out).toMatch(/^Usage: tiergate explain/);
  });

  it('report --help says days are local, --timezone changes it, and --until is inclusive', async () => {
    await cli('report', '--help');
    expect(out).toMatch(/local time zone/);
    expect(out).toMatch(/--timezone/);
    expect(out).toMatch(/--until is inclusive/);
  });
});

describe('did you mean', () => {
  it('suggests the nearest command, flag and value, in one line, exit 2', async () => {
    const cases: [string[], string][] = [
      [['reprot'], "tiergate: unknown command 'reprot': did you mean 'tiergate report'?"],
      [['report', '--jsn'], "unknown option '--jsn': did you mean '--json'?"],
      [['report', '--harness', 'claud'], "unknown --harness 'claud': did you mean 'claude'?"],
      [['report', '--by', 'tiers'], "unknown --by 'tiers': did you mean 'tier'?"],
      [['report', '--by', 'sesion'], "unknown --by 'sesion': did you mean 'session'?"],
      [['explain', '--harness', 'codx', '--parent', 'x'], "unknown --harness 'codx': did you mean 'codex'?"],
      [['prices', 'lst'], "unknown subcommand 'lst': did you mean 'list'?"],
      [['prices', 'show', 'sonnet', '--harness', 'opencod'], "unknown --harness 'opencod': did you mean 'opencode'?"],
      [['scan', '--harness', 'cluade'], "unknown --harness 'cluade': did you mean 'claude'?"],
      [['install', 'claud'], "unknown harness 'claud': did you mean 'claude'?"],
      [['install', 'claude', '--dry'], "unknown option '--dry': did you mean '--dry-run'?"],
      [['config', 'chek'], "unknown subcommand 'chek': did you mean 'check'?"],
    ];
    for (const [argv, text] of cases) {
      expect({ argv, code: await cli(...argv) }).toEqual({ argv, code: 2 });
      expect(err).toContain(text);
      oneLine(err);
      expect(out).toBe('');
    }
    // A value far from every known one lists them instead of guessing.
    expect(await cli('report', '--harness', 'zzzzzz')).toBe(2);
    expect(err).toContain(`unknown --harness 'zzzzzz' (one of ${HARNESS_IDS.join(', ')})`);
    expect(faults()).toBe('');
  });
});

describe("a user's mistake is one line, no stack, and no tiergate fault", () => {
  it('an impossible --since/--until date is a usage error (exit 2), not logged for doctor', async () => {
    for (const argv of [
      ['--since', '2026-13-45'],
      ['--since', '2026-02-30'],
      ['--until', '2026-04-31'],
      ['--since', 'hello 5'],
      ['--since', '2026-03-01T25:00'],
      ['--timezone', 'Mars/Olympus'],
    ]) {
      expect({ argv, code: await cli('report', '--no-drain', ...argv) }).toEqual({ argv, code: 2 });
      oneLine(err);
      expect(err).toMatch(/Run 'tiergate report --help'/);
    }
    expect(await cli('report', '--no-drain', '--since', '2026-03-02', '--until', '2026-03-01')).toBe(2);
    expect(err).toContain('is not before --until');
    expect(faults()).toBe('');
  });

  it('--html naming a directory, or a path through a file, says what to do (exit 1)', async () => {
    expect(await cli('report', '--no-drain', '--html', home)).toBe(1);
    oneLine(err);
    expect(err).toContain(
      `--html ${home} is a directory: give a file name, e.g. --html ${join(home, 'tiergate-report.html')}`,
    );
    writeFileSync(join(home, 'afile'), 'x');
    expect(await cli('report', '--no-drain', '--html', join(home, 'afile', 'r.html'))).toBe(1);
    oneLine(err);
    expect(err).toContain(`${join(home, 'afile')} is a file, not a folder`);
    expect(faults()).toBe('');
  });

  it('--html in a folder that does not exist says so and creates nothing (exit 1)', async () => {
    const page = join(home, 'no-such-folder', 'deeper', 'r.html');
    expect(await cli('report', '--no-drain', '--html', page)).toBe(1);
    oneLine(err);
    expect(err).toContain(`the folder ${join(home, 'no-such-folder', 'deeper')} does not exist`);
    expect(existsSync(join(home, 'no-such-folder'))).toBe(false);
    expect(faults()).toBe('');
  });

  it('--html where the file system refuses the file names the path and why, not a temp file or a fault', async () => {
    // /proc exists and is a folder, but takes no new file: the temp file's open fails with ENOENT.
    expect(await cli('report', '--no-drain', '--html', '/proc/tiergate-report.html')).toBe(1);
    oneLine(err);
    expect(err).toContain('cannot write /proc/tiergate-report.html (');
    expect(err).not.toMatch(/\.tmp-|tiergate fault/);
    expect(faults()).toBe('');
  });

  it('--session/--project that match nothing, or more than one, say so in one line', async () => {
    expect(await cli('report', '--no-drain', '--session', 'abc')).toBe(1);
    oneLine(err);
    expect(err).toContain("no session id starts with 'abc'");
    expect(await cli('report', '--no-drain', '--project', 'nowhere')).toBe(1);
    oneLine(err);
    expect(faults()).toBe('');
  });

  it('a bad --width is a usage error too', async () => {
    expect(await cli('report', '--width', 'wide')).toBe(2);
    oneLine(err);
    expect(err).toContain("--width takes a number of columns (got 'wide')");
  });
});

describe('report | head', () => {
  const CLI = join(root, 'dist/cli.js');
  it('ends quietly when the reader goes away (EPIPE): no stack, exit 0', async () => {
    mkdirSync(join(home, 'tg'), { recursive: true });
    // The reader is gone before the first write (as when `head` has its lines): every write fails with EPIPE.
    const child = spawn(process.execPath, [CLI, 'prices', 'list'], {
      env: { ...process.env, TIERGATE_HOME: join(home, 'tg'), TIERGATE_PRICE_REFRESH: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
