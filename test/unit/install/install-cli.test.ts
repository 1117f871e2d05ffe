/**
 * install/uninstall/doctor as a person uses them (issue 21): doctor recognises what `install opencode` wrote from a
 * copy of the package in any directory; `install --all` only into harnesses found here, saying why it skipped the
 * rest; each command printed once; progress while --run waits; a warning when installing from a transient place;
 * uninstall removes the folders install created.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInstallCli } from '../../../src/cli/install/run.js';
import { install, uninstall } from '../../../src/cli/install/apply.js';
import { detectHarness } from '../../../src/cli/install/detect.js';
import { transientCheckout } from '../../../src/install/transient.js';
import { runCaptured } from '../../support/cli.js';
import { sandbox } from './support.js';

const repo = join(import.meta.dirname, '../../..');
let dirs: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
beforeEach(() => {
  dirs = [];
});
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('doctor after install opencode, from a copy of the package anywhere', () => {
  it('reports ok (not "not installed"), and uninstall takes the entry and the folder it made back out', () => {
    const root = temp('tg-anywhere-');
    // A clone under a name with no "tiergate" in it: the old check matched only tiergate…/dist/opencode.js.
    const pkg = join(root, 'src', 'my-fork');
    mkdirSync(pkg, { recursive: true });
    for (const f of [
      'package.json',
      'dist',
      'data',
      'hooks.json',
      'hooks-codex.json',
      'hooks-cursor.json',
      '.claude-plugin',
      '.codex-plugin',
      '.cursor-plugin',
      '.agents',
      'agents',
    ]) {
      if (existsSync(join(repo, f))) cpSync(join(repo, f), join(pkg, f), { recursive: true });
    }
    symlinkSync(join(repo, 'node_modules'), join(pkg, 'node_modules'));
    const home = join(root, 'home');
    mkdirSync(home);
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      TIERGATE_HOME: join(root, 'tg'),
      TIERGATE_PRICE_REFRESH: 'off',
    };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(pkg, 'dist', 'cli.js'), ...args], { encoding: 'utf8', env, timeout: 60_000 });
    const i = cli('install', 'opencode');
    expect(i.status).toBe(0);
    const file = join(home, '.config', 'opencode', 'opencode.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).plugin).toEqual([`file://${pkg}/dist/opencode.js`]);
    const doc = JSON.parse(cli('doctor', '--json').stdout) as {
      checks: { name: string; status: string; detail: string }[];
    };
    expect(doc.checks.find((c) => c.name === 'opencode')).toMatchObject({
      status: 'ok',
      detail: `plugin entry in ${file}`,
    });
    const u = cli('uninstall', 'opencode');
    expect(u.status).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(home, '.config', 'opencode'))).toBe(false);
    expect(existsSync(join(home, '.config'))).toBe(false);
    expect(existsSync(home)).toBe(true);
    expect(
      JSON.parse(cli('doctor', '--json').stdout).checks.find((c: { name: string }) => c.name === 'opencode').status,
    ).toBe('info');
  });
});

describe('install --all', () => {
  it('installs where a harness is found and says why it skipped the others; a named one is forced', async () => {
    const { ctx } = sandbox();
    const bin = join(ctx.home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'pi'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'pi'), 0o755);
    mkdirSync(join(ctx.home, '.claude'));
    const env = { ...ctx.env, PATH: bin } as Record<string, string>;
    expect(detectHarness({ ...ctx, env }, 'pi')).toEqual({ found: true, how: '`pi` on PATH' });
    expect(detectHarness({ ...ctx, env }, 'claude')).toEqual({
      found: true,
      how: `${join(ctx.home, '.claude')} exists`,
    });
    const run = (argv: string[]) => runCaptured((a) => runInstallCli('install', a), argv, env);
    const r = await run(['--all', '--dry-run', '--json']);
    const doc = JSON.parse(r.out) as { harnesses: { harness: string; status: string; notes: string[] }[] };
    const status = Object.fromEntries(doc.harnesses.map((h) => [h.harness, h.status]));
    expect(status).toMatchObject({
      claude: 'planned',
      pi: 'planned',
      codex: 'skipped',
      cursor: 'skipped',
      opencode: 'skipped',
    });
    // Nothing else of this sandbox is on the machine either.
    expect(Object.entries(status).filter(([h, st]) => !['claude', 'pi'].includes(h) && st !== 'skipped')).toEqual([]);
    expect(doc.harnesses.find((h) => h.harness === 'codex')!.notes[0]).toBe(
      `not found: no \`codex\` on PATH and no ${join(ctx.home, '.codex')}; to install anyway: tiergate install codex`,
    );
    const text = await run(['--all', '--dry-run']);
    expect(text.out).toMatch(/^opencode +skipped\n {2}note: not found: no `opencode` on PATH/m);
    const forced = JSON.parse((await run(['--all', 'codex', '--dry-run', '--json'])).out) as typeof doc;
    expect(forced.harnesses.find((h) => h.harness === 'codex')!.status).toBe('planned');
    expect(JSON.parse((await run(['codex', '--dry-run', '--json'])).out).harnesses[0].status).toBe('planned');
  });
});

describe('install output', () => {
  it('prints each harness command once, and a line before and after each one --run waits on', async () => {
    const { ctx } = sandbox();
    const fake = join(ctx.home, 'fake-claude');
    writeFileSync(fake, '#!/bin/sh\nsleep 0.2\nexit 0\n');
    chmodSync(fake, 0o755);
    const env = { ...ctx.env, TIERGATE_CLAUDE_BIN: fake } as Record<string, string>;
    const printed = await runCaptured((a) => runInstallCli('install', a), ['claude'], env);
    const mentions = printed.out.split('\n').filter((l) => l.includes('plugin marketplace add'));
    expect(mentions).toHaveLength(1);
    expect(mentions[0]).toMatch(/^ {2}\$ /);
    const ran = await runCaptured((a) => runInstallCli('install', a), ['claude', '--run'], env);
    expect(ran.err).toMatch(
      /tiergate install: running `.*fake-claude plugin marketplace add .*` \(.*\); waiting up to 120 s…\ntiergate install: {3}done after \d+\.\d s/,
    );
    expect(ran.err.match(/running `/g)).toHaveLength(2);
    // --json stays machine output: no progress lines.
    const quiet = await runCaptured((a) => runInstallCli('uninstall', a), ['claude', '--run', '--json'], env);
    expect(quiet.err).toBe('');
  });

  it('warns when the package is a temporary directory or a git checkout, not when it is installed', () => {
    const t = temp('tg-transient-');
    expect(transientCheckout(t, {})).toMatch(/^a temporary directory/);
    // A checkout that itself sits in a temporary directory (a CI clone under /var/tmp) is reported as that.
    const inTemp = [tmpdir(), '/tmp', '/var/tmp'].some((d) => repo.startsWith(`${d}/`));
    expect(transientCheckout(repo, {})).toMatch(inTemp ? /^a temporary directory/ : /^a git checkout$/);
    expect(transientCheckout('/opt/lib/node_modules/tiergate', {})).toBeNull();
    expect(transientCheckout('/home/u/.npm/_npx/1234/node_modules/tiergate', {})).toBe("npx's cache, which npm clears");
  });

  it('the warning heads the install output', async () => {
    const { ctx } = sandbox();
    const r = await runCaptured(
      (a) => runInstallCli('install', a),
      ['opencode', '--dry-run'],
      ctx.env as Record<string, string>,
    );
    // runInstallCli installs from the package it runs in: this repository, a git checkout. The output is wrapped to the
    // terminal (120 columns for captured output): the first paragraph, joined again, is the warning.
    const first = r.out.split('\n\n')[0]!;
    expect(Math.max(...first.split('\n').map((l) => l.length))).toBeLessThanOrEqual(120);
    expect(first.replace(/\n\s*/g, ' ')).toBe(
      `warning: the harnesses will load tiergate from ${repo}, ${transientCheckout(repo, {})}: if it is moved,` +
        ' deleted or checked out at another version, they lose tiergate or run that. Install a copy that stays put and' +
        ' run tiergate install from it: in the checkout, npm pack, then npm install -g ./tiergate-<version>.tgz (npm' +
        ' install -g . links the checkout itself; npm install -g tiergate once tiergate is published).',
    );
  });
});

describe('uninstall removes what install created', () => {
  it('the folders install made for its files go, folders that were there stay', () => {
    const { ctx } = sandbox();
    mkdirSync(join(ctx.home, '.pi'));
    install(ctx, ['pi', 'opencode'], { dryRun: false, run: false });
    expect(existsSync(join(ctx.home, '.pi', 'agent', 'settings.json'))).toBe(true);
    expect(existsSync(join(ctx.home, '.config', 'opencode', 'opencode.json'))).toBe(true);
    const rows = uninstall(ctx, ['pi', 'opencode'], { dryRun: false, run: false });
    expect(rows.map((r) => r.status)).toEqual(['done', 'done']);
    expect(existsSync(join(ctx.home, '.pi', 'agent'))).toBe(false);
    expect(existsSync(join(ctx.home, '.pi'))).toBe(true);
    expect(existsSync(join(ctx.home, '.config'))).toBe(false);
    expect(rows[0]!.actions.join('\n')).toContain(`${join(ctx.home, '.pi', 'agent')}: removed (install created it)`);
  });

  it('a folder the user put something into since is kept', () => {
    const { ctx } = sandbox();
    install(ctx, ['opencode'], { dryRun: false, run: false });
    writeFileSync(join(ctx.home, '.config', 'opencode', 'mine.md'), 'x');
    uninstall(ctx, ['opencode'], { dryRun: false, run: false });
    expect(readFileSync(join(ctx.home, '.config', 'opencode', 'mine.md'), 'utf8')).toBe('x');
  });
});
