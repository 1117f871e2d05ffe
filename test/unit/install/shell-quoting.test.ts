/**
 * Paths in shell command lines (issue 22, item 2): what the Cursor installer writes is run by a shell, so a package path
 * holding `$(…)`, quotes, backticks, a newline or non-ASCII must reach node as one literal word and run nothing else.
 * shJoin/shSplit are checked against a real `sh`; the installed hook is run with `sh -c` from a package that really
 * sits under each hostile directory name.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install, uninstall } from '../../../src/cli/install/apply.js';
import { hookCommand, parseHookCommand } from '../../../src/adapters/cursor/install.js';
import type { InstallContext } from '../../../src/install/plan.js';
import { shJoin, shSplit } from '../../../src/install/shell.js';
import { checkCursor } from '../../../src/adapters/cursor/doctor.js';
import { sandbox } from './support.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');

/** The words `sh` makes of each command-line tail, one sh process for all of them. */
function shWords(tails: string[]): string[][] {
  // A first word of our own: printf with no arguments left would still print one empty word.
  const script = tails.map((t) => `printf '%s\\0' @ ${t}; printf '\\001'`).join('\n');
  const r = spawnSync('sh', ['-c', script], { encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .split('\x01')
    .slice(0, tails.length)
    .map((rec) => rec.split('\0').slice(1, -1));
}

// Characters sh treats specially, plus ordinary and non-ASCII ones; no NUL (an argv word cannot hold one).
const nasty = fc.constantFrom(...' \t\n\'"\\$`(){}[]*?~#!|&;<>=^%@+:,./-_aZ9é日'.split(''), '$(', '${', "'\\''");
const word = fc.string({ unit: nasty, maxLength: 12 });

describe('shJoin / shSplit', () => {
  it('sh reads back exactly the argv shJoin wrote, and so does shSplit', () => {
    const cases = fc.sample(fc.array(word, { minLength: 1, maxLength: 4 }), { numRuns: 300, seed: 22 });
    const got = shWords(cases.map(shJoin));
    cases.forEach((argv, i) => {
      expect(got[i]).toEqual(argv);
      expect(shSplit(shJoin(argv))).toEqual(argv);
    });
  });

  it('whatever shSplit accepts, sh splits the same way (expansions, operators and globs are refused, not guessed)', () => {
    // Mostly plain characters and quotes, so that many tails are plain words and the comparison means something.
    const unit = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...'aZ9 é./-\'"\\'.split('')) },
      { weight: 1, arbitrary: nasty },
    );
    const tails = fc.sample(fc.string({ unit, minLength: 1, maxLength: 16 }), { numRuns: 400, seed: 7 });
    const accepted = tails.filter((t) => shSplit(t) !== null);
    // Enough of them are accepted for the comparison to mean something.
    expect(accepted.length).toBeGreaterThan(100);
    const got = shWords(accepted);
    accepted.forEach((t, i) => expect({ t, words: shSplit(t) }).toEqual({ t, words: got[i] }));
    for (const refused of ['"$(touch x)"', '`x`', 'a;b', '"a$HOME"', "'open", 'FOO=1 node', '~/x', 'a*b', '"\\"'])
      expect(shSplit(refused), refused).toBeNull();
    expect(shSplit('node --preserve-symlinks-main "/opt/tier gate/dist/hook.cjs" cursor preToolUse')).toEqual([
      'node',
      '--preserve-symlinks-main',
      '/opt/tier gate/dist/hook.cjs',
      'cursor',
      'preToolUse',
    ]);
  });
});

/** Directory names a package path may hold. */
const HOSTILE = [
  'with space',
  'say "hi"',
  "it's",
  "'; touch pwned-quote; '",
  'dollar $HOME ${PWD}',
  '$(touch pwned-subst)',
  '`touch pwned-tick`',
  'back\\slash',
  'line\nbreak',
  'café 日本 ü',
];

/** This checkout's build, copied once whole (a rebuild running meanwhile empties dist/ for a while). */
let built = '';
/** Temp dirs holding copies of dist/ (3.7 MB each), removed after the run. */
const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
const BUNDLES = ['hook.cjs', 'hook-dispatch-cursor.cjs', 'hook-events.cjs'];
beforeAll(async () => {
  const copy = mkdtempSync(join(tmpdir(), 'tg-quote-dist-'));
  made.push(copy);
  for (let i = 0; i < 30 && !built; i++) {
    if (BUNDLES.every((b) => existsSync(join(root, 'dist', b)))) {
      cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
      if (BUNDLES.every((b) => existsSync(join(copy, 'dist', b)))) built = join(copy, 'dist');
    }
    if (!built) await new Promise((r) => setTimeout(r, 2000));
  }
}, 90_000);

/** A tiergate package at `<tmp>/<name>/tiergate`: the build copied in, data/ linked. */
function hostilePackage(name: string): { ctx: InstallContext; cwd: string; tg: string } {
  const base = mkdtempSync(join(tmpdir(), 'tg-quote-'));
  made.push(base);
  const pkgRoot = join(base, name, 'tiergate');
  mkdirSync(pkgRoot, { recursive: true });
  copyFileSync(join(root, 'package.json'), join(pkgRoot, 'package.json'));
  cpSync(built, join(pkgRoot, 'dist'), { recursive: true });
  symlinkSync(join(root, 'data'), join(pkgRoot, 'data'));
  const home = join(base, 'home');
  const cwd = join(base, 'cwd');
  mkdirSync(home);
  mkdirSync(cwd);
  const tg = join(base, 'tg');
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), TIERGATE_HOME: tg, PATH: process.env.PATH ?? '' };
  return { ctx: { env, pkgRoot, version: '0.0.0', home }, cwd, tg };
}

const taskPayload = (() => {
  const p = fixturePayload('cursor/preToolUse.task.json');
  // A cheaper parent than the child asked for: only the real hook answers deny.
  return JSON.stringify({
    ...p,
    model: 'claude-haiku-4-5',
    tool_input: { ...(p.tool_input as object), model: 'claude-opus-5' },
  });
})();

describe('the Cursor hook command under a hostile package path', () => {
  it('dist/ is built', () => expect(built, 'run npm run build').not.toBe(''));

  it.each(HOSTILE)('%j: installed, run by sh -c, it decides and runs nothing else', (name) => {
    const { ctx, cwd, tg } = hostilePackage(name);
    const [ins] = install(ctx, ['cursor'], { dryRun: false, run: false });
    expect(ins!.status, ins!.problems.join('; ')).toBe('done');
    const file = join(ctx.home, '.cursor', 'hooks.json');
    const hooks = JSON.parse(readFileSync(file, 'utf8')).hooks as Record<string, { command: string }[]>;
    const command = hooks.preToolUse![0]!.command;

    const r = spawnSync('sh', ['-c', command], {
      cwd,
      input: taskPayload,
      encoding: 'utf8',
      timeout: 20_000,
      env: ctx.env as NodeJS.ProcessEnv,
    });
    const stop = spawnSync('sh', ['-c', hooks.subagentStop![0]!.command], {
      cwd,
      input: '{}',
      encoding: 'utf8',
      timeout: 20_000,
      env: ctx.env as NodeJS.ProcessEnv,
    });
    // Nothing ran but node: no marker file in the working directory.
    expect(readdirSync(cwd)).toEqual([]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).permission).toBe('deny');
    expect(stop.stdout).toBe('{}\n');
    expect(existsSync(tg)).toBe(true);
    expect(command).toBe(hookCommand(ctx, 'preToolUse'));
    expect(parseHookCommand(command)).toEqual({
      script: join(ctx.pkgRoot, 'dist', 'hook.cjs'),
      args: ['cursor', 'preToolUse'],
    });

    // Doctor reads the same path back; a second install finds it; uninstall without a record takes it out.
    expect(checkCursor(ctx).status).toBe('ok');
    expect(install(ctx, ['cursor'], { dryRun: false, run: false })[0]!.status).toBe('unchanged');
    const moved = { ...ctx, env: { ...ctx.env, TIERGATE_HOME: join(tg, 'elsewhere') } };
    expect(uninstall(moved, ['cursor'], { dryRun: false, run: false })[0]!.status).toBe('done');
    expect(readFileSync(file, 'utf8')).not.toContain('hook.cjs');
  });
});

describe('commands older installers wrote', () => {
  const ctx = { pkgRoot: '/opt/tiergate', home: '/nonexistent', env: {}, version: '0.0.0' } as InstallContext;

  it('the double-quoted form of a plain path reads back as this install (no duplicate on upgrade)', () => {
    const legacy = 'node --preserve-symlinks-main "/opt/tiergate/dist/hook.cjs" cursor preToolUse';
    expect(parseHookCommand(legacy)).toEqual(parseHookCommand(hookCommand(ctx, 'preToolUse')));
  });

  it('a double-quoted path the shell would expand: doctor fails it, uninstall still takes it out', () => {
    const { ctx: sb } = sandbox();
    const legacy = (event: string) =>
      `node --preserve-symlinks-main "/tmp/$(touch x)/tiergate/dist/hook.cjs" cursor ${event}`;
    expect(parseHookCommand(legacy('preToolUse'))).toBeNull();
    const file = join(sb.home, '.cursor', 'hooks.json');
    mkdirSync(join(sb.home, '.cursor'));
    const hooks = Object.fromEntries(
      ['preToolUse', 'subagentStart', 'subagentStop'].map((e) => [
        e,
        [{ command: legacy(e) }, { command: './mine.sh' }],
      ]),
    );
    writeFileSync(file, JSON.stringify({ version: 1, hooks }));
    const c = checkCursor(sb);
    expect(c.status).toBe('error');
    expect(c.detail).toMatch(/shell expands.*uninstall cursor/);
    expect(uninstall(sb, ['cursor'], { dryRun: false, run: false })[0]!.status).toBe('done');
    const left = readFileSync(file, 'utf8');
    expect(left).not.toContain('hook.cjs');
    expect(left.match(/mine\.sh/g)).toHaveLength(3);
  });
});
