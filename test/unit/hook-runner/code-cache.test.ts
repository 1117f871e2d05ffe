/**
 * dist/hook.cjs turns on Node's compile cache (22.1+) in `<data dir>/code-cache` (src/hook-runner/code-cache.ts). On older
 * Node there is no cache and nothing else changes; a cache directory that is a link, not a directory or not ours is
 * refused with one diagnostic line, and the hook answers all the same.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { enableCodeCache, type CompileCacheApi } from '../../../src/hook-runner/code-cache.js';
import { startHook } from '../../../src/hook-runner/loader.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const hook = join(root, 'dist/hook.cjs');
const codexPayload = fixturePayload('codex/PreToolUse.basic.json');
/** Whether the Node running these tests has a compile cache (22.1+). */
const nodeHasCache = typeof (nodeModule as CompileCacheApi).enableCompileCache === 'function';

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-codecache-'));
  const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') };
  const data = join(env.TIERGATE_HOME, 'data');
  const cacheDir = join(data, 'code-cache');
  const run = () =>
    spawnSync(process.execPath, [hook, 'codex', 'PreToolUse'], {
      input: JSON.stringify({ ...codexPayload, cwd: dir, model: 'gpt-6-luna' }),
      env,
      encoding: 'utf8',
      timeout: 15_000,
    });
  const log = () => {
    try {
      return readFileSync(join(data, 'diagnostics.log'), 'utf8');
    } catch {
      return '';
    }
  };
  return { dir, env, data, cacheDir, run, log };
}

/** A stand-in for node:module that records the directories it was asked to use. */
function fakeApi(status = 1) {
  const dirs: string[] = [];
  const api: CompileCacheApi = {
    enableCompileCache: (dir) => {
      dirs.push(dir);
      return { status, message: 'no space' };
    },
    constants: { compileCacheStatus: { FAILED: 0 } },
  };
  return { api, dirs };
}

const denies = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
    .permissionDecision === 'deny';

describe('enableCodeCache', () => {
  it('does nothing on a Node without a compile cache: no directory, no diagnostic', () => {
    const sb = sandbox();
    expect(enableCodeCache(sb.env, {})).toBe(false);
    expect(existsSync(sb.data)).toBe(false);
  });

  it('creates a user-only directory in the data dir and hands it to Node', () => {
    const sb = sandbox();
    const { api, dirs } = fakeApi();
    expect(enableCodeCache(sb.env, api)).toBe(true);
    expect(dirs).toEqual([sb.cacheDir]);
    expect(statSync(sb.cacheDir).mode & 0o777).toBe(0o700);
    // An existing one others can read is made user-only.
    const sb2 = sandbox();
    mkdirSync(sb2.cacheDir, { recursive: true });
    chmodSync(sb2.cacheDir, 0o755);
    expect(enableCodeCache(sb2.env, api)).toBe(true);
    expect(statSync(sb2.cacheDir).mode & 0o777).toBe(0o700);
  });

  it("refuses a link in the directory's place (never follows it, never chmods its target) and says so", () => {
    const sb = sandbox();
    const outside = join(sb.dir, 'outside');
    mkdirSync(outside, { mode: 0o755 });
    chmodSync(outside, 0o755);
    mkdirSync(sb.data, { recursive: true });
    symlinkSync(outside, sb.cacheDir);
    const { api, dirs } = fakeApi();
    expect(enableCodeCache(sb.env, api)).toBe(false);
    expect(dirs).toEqual([]);
    expect(lstatSync(sb.cacheDir).isSymbolicLink()).toBe(true);
    expect(statSync(outside).mode & 0o777).toBe(0o755);
    expect(readdirSync(outside)).toEqual([]);
    const lines = sb.log().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('hook:code-cache');
  });

  it("refuses a directory that is not the user's, and a file in its place", () => {
    const sb = sandbox();
    const { api, dirs } = fakeApi();
    expect(enableCodeCache(sb.env, api, (process.getuid?.() ?? 0) + 1)).toBe(false);
    expect(sb.log()).toContain('belongs to another user');
    const sb2 = sandbox();
    mkdirSync(sb2.data, { recursive: true });
    writeFileSync(sb2.cacheDir, 'not a directory');
    expect(enableCodeCache(sb2.env, api)).toBe(false);
    expect(sb2.log()).toContain('hook:code-cache');
    expect(dirs).toEqual([]);
  });

  it('says so when Node cannot enable the cache', () => {
    const sb = sandbox();
    const { api } = fakeApi(0);
    expect(enableCodeCache(sb.env, api)).toBe(false);
    expect(sb.log()).toMatch(/hook:code-cache.*no space/);
  });
});

describe('dist/hook.cjs', () => {
  it(`answers the same run after run; the compile cache has files exactly when Node has one (${process.version})`, () => {
    const sb = sandbox();
    const first = sb.run();
    expect(first.status).toBe(0);
    expect(denies(first.stdout)).toBe(true);
    const second = sb.run();
    expect(second.stdout).toBe(first.stdout);
    if (nodeHasCache) {
      expect(statSync(sb.cacheDir).mode & 0o777).toBe(0o700);
      const files = readdirSync(sb.cacheDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      expect(files.length).toBeGreaterThan(0);
    } else expect(existsSync(sb.cacheDir)).toBe(false);
    expect(sb.log()).not.toContain('hook:code-cache');
  });

  it('still answers when the cache directory is a file', () => {
    const sb = sandbox();
    mkdirSync(sb.data, { recursive: true });
    writeFileSync(sb.cacheDir, 'not a directory');
    const r = sb.run();
    expect(r.status).toBe(0);
    expect(denies(r.stdout)).toBe(true);
    expect(sb.log().includes('hook:code-cache')).toBe(nodeHasCache);
  });

  it('a missing bundle: the harness proceeds (exit 0, no answer) and stderr says why', () => {
    const sb = sandbox();
    const dist = join(sb.dir, 'dist');
    mkdirSync(dist);
    writeFileSync(join(dist, 'hook.cjs'), readFileSync(hook));
    const r = spawnSync(process.execPath, [join(dist, 'hook.cjs'), 'codex', 'PreToolUse'], {
      input: '{}',
      env: sb.env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('tiergate: hook could not run');
  });
});

describe('startHook (dist/hook.cjs)', () => {
  /** Runs the loader in-process with a stand-in `require`; returns the exit code it chose and what it wrote. */
  async function start(load: (id: string) => unknown) {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await startHook('/dist', ['codex', 'PreToolUse'], load, { codex: ['PreToolUse'] });
      return { code: exit.mock.calls[0]?.[0], stderr: err.mock.calls.map((c) => String(c[0])).join('') };
    } finally {
      exit.mockRestore();
      err.mockRestore();
    }
  }
  const bundle = { main: async (argv: string[]) => (argv[0] === 'codex' ? 7 : 1) };

  it('never loads dist/code-cache.cjs where Node has no compile cache', async () => {
    const loaded: string[] = [];
    const r = await start((id) => {
      loaded.push(id);
      return id === 'node:module' ? {} : bundle;
    });
    expect(r.code).toBe(7);
    expect(loaded).toEqual(['node:module', '/dist/hook-dispatch-codex.cjs']);
  });

  it('a compile cache that cannot be turned on costs the cache, never the hook: the bundle runs, stderr says why', async () => {
    const r = await start((id) => {
      if (id === 'node:module') return { enableCompileCache: () => ({ status: 1 }) };
      if (id.endsWith('code-cache.cjs')) throw new Error('code-cache.cjs: damaged');
      return bundle;
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^tiergate: hook compile cache not used \(Error: code-cache\.cjs: damaged\)\n$/);
  });
});
