/**
 * The published package: `npm pack` holds the bundles, manifests, price snapshot, agents and README and nothing from
 * tests or sources; laid out from the tarball in a temp dir as npm installs it (no registry), its CLI, command hook
 * and the OpenCode / pi entry points run from there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { packAndInstall, repoRoot as root } from '../../support/packed.js';
import { HARNESS_IDS } from '../../../src/contracts/harness.js';

const pkgJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
let files: string[] = [];
let dir = '';
let installed = '';
let home = '';

/** Every file the manifests in the repo point at: these must ship. */
function referencedFiles(): string[] {
  const refs = new Set<string>([
    'package.json',
    'README.md',
    'data/prices-snapshot.json',
    'dist/cli.js',
    'dist/hook.cjs',
    'hooks-cursor.json',
    '.cursor-plugin/plugin.json',
  ]);
  for (const b of Object.values(pkgJson.bin as Record<string, string>)) refs.add(b.replace(/^\.\//, ''));
  for (const e of pkgJson.pi?.extensions ?? []) refs.add(String(e).replace(/^\.\//, ''));
  for (const m of [
    '.claude-plugin/plugin.json',
    '.codex-plugin/plugin.json',
    '.cursor-plugin/plugin.json',
    '.plugin/plugin.json',
    '.claude-plugin/marketplace.json',
    '.agents/plugins/marketplace.json',
  ]) {
    if (!existsSync(join(root, m))) continue;
    refs.add(m);
    const manifest = JSON.parse(readFileSync(join(root, m), 'utf8'));
    if (typeof manifest.hooks === 'string') refs.add(manifest.hooks.replace(/^\.\//, ''));
  }
  for (const h of [
    'hooks.json',
    'hooks-codex.json',
    'hooks-cursor.json',
    'hooks-copilot.json',
    'hooks-grok.json',
    'hooks/hooks.json',
  ]) {
    if (!existsSync(join(root, h))) continue;
    refs.add(h);
    const text = readFileSync(join(root, h), 'utf8');
    for (const m of text.matchAll(/\}\/(dist\/[\w.-]+\.js)/g)) refs.add(m[1]!);
    for (const m of (JSON.parse(text).modules ?? []) as string[]) refs.add(m.replace(/^\.\//, ''));
  }
  return [...refs].sort();
}

beforeAll(() => {
  const p = packAndInstall();
  files = p.files;
  dir = p.dir;
  installed = p.installed;
  home = join(dir, 'home');
  mkdirSync(home);
}, 300_000);

const env = () => ({
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  TIERGATE_HOME: join(home, 'tg'),
});
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(installed, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    env: env(),
    timeout: 30_000,
  });

describe('npm pack', () => {
  it('holds every file the manifests point at', () => {
    expect(referencedFiles().filter((f) => !files.includes(f))).toEqual([]);
  });

  it('holds nothing from tests, sources or tooling', () => {
    expect(
      files.filter(
        (f) =>
          /^(test|src|bench|scripts|\.ci|node_modules|plugins|extensions|docs|\.cache)\//.test(f) ||
          /\.test\.|\.tgz$|tsconfig|vitest/.test(f),
      ),
    ).toEqual([]);
  });

  it('its manifests carry the package version', () => {
    for (const m of [
      '.claude-plugin/plugin.json',
      '.codex-plugin/plugin.json',
      '.cursor-plugin/plugin.json',
      '.plugin/plugin.json',
    ].filter((f) => files.includes(f))) {
      expect({ m, v: JSON.parse(readFileSync(join(installed, m), 'utf8')).version }).toEqual({ m, v: pkgJson.version });
    }
  });
});

describe('installed from the tarball', () => {
  it('the CLI runs and plans all five harnesses against the installed package', () => {
    const r = cli('install', 'claude', 'codex', 'cursor', 'opencode', 'pi', '--dry-run', '--json');
    const out = JSON.parse(r.stdout);
    expect(out.packageRoot).toBe(installed);
    // The test installs the tarball under the temp dir, so the install would point at a temporary place.
    expect(out.warnings).toEqual([expect.stringContaining('a temporary directory')]);
    expect(out.harnesses.map((h: { harness: string; status: string }) => [h.harness, h.status])).toEqual([
      ['claude', 'planned'],
      ['codex', 'planned'],
      ['cursor', 'planned'],
      ['opencode', 'planned'],
      ['pi', 'planned'],
    ]);
    expect(r.status).toBe(0);
    // --all: each harness planned where it is found, else skipped saying why (this HOME is empty).
    const all = JSON.parse(cli('install', '--all', '--dry-run', '--json').stdout) as {
      harnesses: { status: string; notes: string[] }[];
    };
    for (const h of all.harnesses) {
      expect(['planned', 'skipped']).toContain(h.status);
      if (h.status === 'skipped') expect(h.notes[0]).toMatch(/^not found: /);
    }
  });

  it("`tiergate demo` runs from there (the README's first command): demo data ships, every harness replays", () => {
    const r = cli('demo', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { decisions: { harness: string }[]; report: { totals: { completed: number } } };
    expect(new Set(out.decisions.map((d) => d.harness))).toEqual(new Set(HARNESS_IDS));
    // One recorded child per harness, and Claude's corrected one besides (issue 29: every correction completes).
    expect(out.report.totals.completed).toBe(HARNESS_IDS.length + 1);
  });

  it('doctor runs from there and finds the bundled snapshot', () => {
    const r = cli('doctor', '--json');
    const out = JSON.parse(r.stdout);
    expect(out.checks.find((c: { name: string }) => c.name === 'bundled snapshot').status).toBe('ok');
    expect(r.status).toBe(out.ok ? 0 : 1);
  });

  it('the command hook answers a Cursor subagentStart with an allow', () => {
    const payload = readFileSync(join(root, 'test/fixtures/cursor/subagentStart.basic.json'), 'utf8');
    const r = spawnSync(process.execPath, [join(installed, 'dist', 'hook.cjs'), 'cursor', 'subagentStart'], {
      input: `\uFEFF${payload}`,
      encoding: 'utf8',
      env: env(),
      timeout: 30_000,
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ permission: 'allow' });
  });

  it('the OpenCode and pi entry points load from the installed package', () => {
    const probe = `
      const oc = await import(${JSON.stringify(join(installed, 'dist', 'opencode.js'))});
      const pi = await import(${JSON.stringify(join(installed, 'dist', 'pi.js'))});
      const fns = Object.entries(oc).filter(([, v]) => typeof v === 'function').map(([k]) => k);
      console.log(JSON.stringify({ opencode: fns, pi: typeof pi.default }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], {
      encoding: 'utf8',
      env: env(),
      timeout: 30_000,
    });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.opencode.length).toBeGreaterThan(0);
    expect(out.pi).toBe('function');
  });
});
