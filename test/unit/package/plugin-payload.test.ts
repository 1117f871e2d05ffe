/**
 * issue 34 item 6: what Claude Code and Codex copy into their plugin caches is harness-plugin/ (npm run build), not
 * the package with its node_modules. It must hold every file the hooks start or load, run from a copy outside the
 * package (Codex runs the hooks from its cache copy), and nothing else of size.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSnapshotPath, PLUGIN_DIR } from '../../../src/prices/snapshot-path.js';
import { repoRoot as root } from '../../support/packed.js';

const payload = join(root, PLUGIN_DIR);

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('the plugin payload (harness-plugin/)', () => {
  it('is what both marketplaces install, and ships in the package', () => {
    const claude = JSON.parse(readFileSync(join(root, '.claude-plugin/marketplace.json'), 'utf8'));
    const codex = JSON.parse(readFileSync(join(root, '.agents/plugins/marketplace.json'), 'utf8'));
    expect(claude.plugins[0].source).toBe(`./${PLUGIN_DIR}`);
    expect(codex.plugins[0].source).toEqual({ source: 'local', path: `./${PLUGIN_DIR}` });
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files).toContain(`${PLUGIN_DIR}/`);
  });

  it("holds every file the manifests' hooks name and the bundles open, and stays small", () => {
    const have = new Set(files(payload));
    for (const m of ['.claude-plugin/plugin.json', '.codex-plugin/plugin.json', '.plugin/plugin.json']) {
      expect(have.has(m)).toBe(true);
      const hooks = String(JSON.parse(readFileSync(join(payload, m), 'utf8')).hooks).replace(/^\.\//, '');
      expect(have.has(hooks), hooks).toBe(true);
      for (const ref of readFileSync(join(payload, hooks), 'utf8').match(/dist\/[\w.-]+/g) ?? [])
        expect(have.has(ref), ref).toBe(true);
    }
    // dist/hook.cjs picks a bundle per event; the event bundle starts the refresh and push (refresh.js, cli.js).
    for (const f of readdirSync(join(root, 'dist')).filter((f) =>
      /^hook-|^(hook|code-cache|policy-load)\.cjs$/.test(f),
    ))
      expect(have.has(`dist/${f}`), f).toBe(true);
    for (const f of ['dist/refresh.js', 'dist/cli.js', 'dist/claude-module.js', 'data/prices-snapshot.json'])
      expect(have.has(f), f).toBe(true);
    // The only packages: the SQLite binding and the two it is loaded through.
    const packages = new Set([...have].filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/')[1]));
    expect([...packages].sort()).toEqual(['better-sqlite3', 'bindings', 'file-uri-to-path']);
    expect([...have].some((f) => f.includes('/deps/') || f.includes('/src/'))).toBe(false);
    const bytes = [...have].reduce((n, f) => n + lstatSync(join(payload, f)).size, 0);
    expect(bytes).toBeLessThan(10e6);
  });

  it('a copy outside the package (a plugin cache) runs the hooks: a session start, and the ledger opens', () => {
    const cache = join(mkdtempSync(join(tmpdir(), 'tg-plugin-cache-')), 'tiergate');
    cpSync(payload, cache, { recursive: true });
    const home = mkdtempSync(join(tmpdir(), 'tg-plugin-home-'));
    const env = { PATH: process.env.PATH ?? '', HOME: home, TIERGATE_HOME: join(home, 'tg') };
    const start = spawnSync(process.execPath, [join(cache, 'dist/hook.cjs'), 'codex', 'SessionStart'], {
      input: JSON.stringify({ session_id: 's1', cwd: home, hook_event_name: 'SessionStart' }),
      env,
      encoding: 'utf8',
    });
    expect(start.status).toBe(0);
    // The event bundle loads the binding by the package name, from the copy's own node_modules.
    const open = spawnSync(
      process.execPath,
      [
        '-e',
        `const D = require('module').createRequire(process.argv[1])('better-sqlite3'); new D(':memory:').close()`,
        join(cache, 'dist/hook-events.cjs'),
      ],
      { encoding: 'utf8', cwd: home },
    );
    expect(open.status, open.stderr).toBe(0);
    // The cache copy prices from its own snapshot (nothing of the package above it).
    expect(findSnapshotPath(join(cache, 'dist'))).toBe(join(cache, 'data', 'prices-snapshot.json'));
  });

  it('run in place inside the package (Claude Code reads the marketplace source), it uses the package snapshot', () => {
    // The effective file names its inputs by path: the CLI and the hooks must name the same snapshot, or each finds the
    // other's file stale and rebuilds it.
    expect(findSnapshotPath(join(payload, 'dist'))).toBe(join(root, 'data', 'prices-snapshot.json'));
    expect(existsSync(join(payload, 'data', 'prices-snapshot.json'))).toBe(true);
  });
});
