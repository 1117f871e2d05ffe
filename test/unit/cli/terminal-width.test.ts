/**
 * What a newcomer's terminal shows: `tiergate demo`, help, doctor, install, uninstall and explain through a real
 * pseudo-terminal (util-linux `script`, its size set with stty) at 80 and 120 columns, and through a pipe with and
 * without COLUMNS. No line is wider than the terminal, and no word is cut: the words are those of a very wide run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const cli = join(root, 'dist', 'cli.js');
let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tg-term-'));
  const home = join(dir, 'home');
  const bin = join(dir, 'bin');
  mkdirSync(home);
  mkdirSync(bin);
  // No harness binary on PATH (only node's folder), an empty home: what a machine before any install looks like.
  env = {
    PATH: `${bin}:${join(process.execPath, '..')}:/usr/bin:/bin`,
    HOME: home,
    TIERGATE_HOME: join(dir, 'tg'),
    TIERGATE_PRICE_REFRESH: 'off',
    TZ: 'UTC',
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** `tiergate ...args` on a pseudo-terminal `cols` wide; its output as lines, control sequences stripped. */
function onTerminal(cols: number, args: string[], extra: Record<string, string> = {}): string[] {
  const cmd = `stty cols ${cols} rows 60; exec ${quote(process.execPath)} ${quote(cli)} ${args.map(quote).join(' ')}`;
  const out = execFileSync('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
    env: { ...env, ...extra },
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return stripVTControlCharacters(out).replace(/\r\n/g, '\n').trimEnd().split('\n');
}

/** The same through a pipe (no terminal): COLUMNS when given, else 120. */
function throughPipe(args: string[], extra: Record<string, string> = {}): string[] {
  const r = execFileSync(process.execPath, [cli, ...args], {
    env: { ...env, ...extra },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return r.trimEnd().split('\n');
}

const widest = (lines: string[]) => Math.max(...lines.map((l) => [...l].length));
const words = (lines: string[]) => lines.join(' ').split(/\s+/).filter(Boolean);

describe('tiergate demo fits the terminal', () => {
  it('at 80 columns on a terminal (an exported COLUMNS=200 notwithstanding): stacked decisions, compact table', () => {
    const lines = onTerminal(80, ['demo'], { COLUMNS: '200' });
    expect(widest(lines)).toBeLessThanOrEqual(80);
    const text = lines.join('\n');
    expect(text).toContain('  Claude Code: opus -> parent claude-sonnet-5-5\n      CORRECT (over-ceiling-corrected)');
    expect(text).toMatch(/Compact columns for 80 columns/);
    expect(text).toMatch(/│ total +│ +14 │/);
  });

  it('at 120 columns on a terminal: the table with corrections and denials, every line within 120', () => {
    const lines = onTerminal(120, ['demo']);
    expect(widest(lines)).toBeLessThanOrEqual(120);
    expect(widest(lines)).toBeGreaterThan(80);
    expect(lines.join('\n')).toMatch(/│ harness +│ runs │ +corrected │ denied │/);
  });

  it('through a pipe: COLUMNS when set, else 120', () => {
    expect(widest(throughPipe(['demo'], { COLUMNS: '80' }))).toBeLessThanOrEqual(80);
    const wide = throughPipe(['demo']);
    expect(widest(wide)).toBeLessThanOrEqual(120);
    expect(widest(wide)).toBeGreaterThan(100);
  });

  it('names the user zone (TZ=America/Los_Angeles), not UTC', () => {
    const text = throughPipe(['demo'], { TZ: 'America/Los_Angeles', COLUMNS: '80' }).join('\n');
    expect(text).toContain('period: all recorded time (America/Los_Angeles)');
    expect(text).not.toContain('(UTC)');
  });
});

describe('help, doctor, install, uninstall and explain wrap at word boundaries', () => {
  const commands: [string, string[]][] = [
    ['help', ['help']],
    ['report --help', ['report', '--help']],
    ['doctor', ['doctor']],
    ['install --dry-run', ['install', 'opencode', 'pi', 'cursor', '--dry-run']],
    ['uninstall --help', ['uninstall', '--help']],
    ['explain', ['explain', '--parent', 'claude-sonnet-4-5', '--child', 'opus']],
  ];
  for (const [name, args] of commands) {
    it(`${name}: no line past 80 or 120 columns, the same words as at 1000`, () => {
      const all = throughPipe(args, { COLUMNS: '1000' });
      // The case worth testing: unwrapped, some line is wider than 80.
      expect(widest(all)).toBeGreaterThan(80);
      for (const cols of [80, 120]) {
        const lines = onTerminal(cols, args);
        expect(
          widest(lines),
          lines.find((l) => l.length > cols),
        ).toBeLessThanOrEqual(cols);
        expect(words(lines)).toEqual(words(all));
      }
    });
  }
});
