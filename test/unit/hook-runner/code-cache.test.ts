/**
 * dist/hook.cjs runs its bundle from V8's cached code (src/hook-runner/loader.ts). The cache must never change an
 * answer, must be private, and a damaged or foreign cache file must be ignored and replaced, never trusted: V8 on
 * Node 20 does not checksum cached data, so a damaged one would crash the hook.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeCodeCache, readCodeCache } from '../../../src/hook-runner/loader.js';

const root = join(import.meta.dirname, '../../..');
const hook = join(root, 'dist/hook.cjs');
const { _meta, ...codexPayload } = JSON.parse(
  readFileSync(join(root, 'test/fixtures/codex/PreToolUse.basic.json'), 'utf8'),
) as Record<string, unknown>;
void _meta;

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-codecache-'));
  const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') };
  const cacheDir = join(env.TIERGATE_HOME, 'data', 'code-cache');
  const run = (
    harness = 'codex',
    event = 'PreToolUse',
    payload: unknown = { ...codexPayload, cwd: dir, model: 'gpt-6-luna' },
  ) =>
    spawnSync(process.execPath, [hook, harness, event], {
      input: JSON.stringify(payload),
      env,
      encoding: 'utf8',
      timeout: 15_000,
    });
  const files = () => {
    try {
      return readdirSync(cacheDir)
        .filter((f) => f.endsWith('.v8'))
        .sort();
    } catch {
      return [];
    }
  };
  // A dispatch bundle's first run writes the dispatch memo and leaves the code cache to the next run, which loads from
  // the memo and so compiles less (src/runtime/context.ts, wroteDispatchMemo): two runs make a cache.
  const warm = (...args: Parameters<typeof run>) => {
    run(...args);
    return run(...args);
  };
  return { dir, env, cacheDir, run, warm, files };
}

const denies = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
    .permissionDecision === 'deny';

describe('code cache file format', () => {
  const data = Buffer.from('compiled code, say');
  const dir = mkdtempSync(join(tmpdir(), 'tg-codecache-file-'));
  const file = join(dir, 'c.v8');
  /** What the loader (and doctor) make of a cache file holding `bytes`. */
  const viaFile = (bytes: Buffer) => {
    writeFileSync(file, bytes);
    return readCodeCache(file);
  };

  it('round-trips', () => {
    expect(viaFile(encodeCodeCache(data))?.equals(data)).toBe(true);
  });

  it('rejects a flipped bit in either copy, a truncation, extra bytes, a foreign header and an empty payload', () => {
    const good = encodeCodeCache(data);
    for (let i = 8; i < good.length; i++) {
      const bad = Buffer.from(good);
      bad[i]! ^= 0x10;
      expect(viaFile(bad), `byte ${i}`).toBeNull();
    }
    expect(viaFile(good.subarray(0, good.length - 1))).toBeNull();
    expect(viaFile(Buffer.concat([good, Buffer.from([0])]))).toBeNull();
    expect(viaFile(Buffer.concat([Buffer.from('XXXX'), good.subarray(4)]))).toBeNull();
    expect(viaFile(encodeCodeCache(Buffer.alloc(0)))).toBeNull();
    expect(viaFile(Buffer.alloc(3))).toBeNull();
  });

  it('reads a large file whole (short reads, a length over several bytes) and rejects its damage the same way', () => {
    const big = Buffer.alloc(300_000, 7);
    big.writeUInt32LE(0xdeadbeef, 1000);
    const good = encodeCodeCache(big);
    expect(viaFile(good)?.equals(big)).toBe(true);
    for (const i of [0, 3, 4, 7, 8, 8 + big.length - 1, 8 + big.length, good.length - 1]) {
      const bad = Buffer.from(good);
      bad[i]! ^= 0x10;
      expect(viaFile(bad), `byte ${i} of ${good.length}`).toBeNull();
    }
    expect(viaFile(good.subarray(0, good.length - 1))).toBeNull();
    expect(viaFile(Buffer.concat([good, Buffer.from([0])]))).toBeNull();
    expect(viaFile(good.subarray(0, 5))).toBeNull();
    expect(viaFile(Buffer.alloc(0))).toBeNull();
  });

  it('is null, not a throw, for an absent file and for a directory in its place', () => {
    expect(readCodeCache(join(dir, 'absent.v8'))).toBeNull();
    expect(readCodeCache(dir)).toBeNull(); // EISDIR on read
  });
});

describe('dist/hook.cjs with a code cache', () => {
  it('writes a user-only cache on the run after the memo is written, uses it after, and answers the same every time', () => {
    const sb = sandbox();
    const memoRun = sb.run();
    expect(memoRun.status).toBe(0);
    expect(denies(memoRun.stdout)).toBe(true);
    expect(readdirSync(join(sb.env.TIERGATE_HOME, 'data', 'dispatch-memo'))).toHaveLength(1);
    expect(sb.files()).toEqual([]);
    const first = sb.run();
    expect(first.stdout).toBe(memoRun.stdout);
    const [file, ...more] = sb.files();
    expect(more).toEqual([]);
    expect(file).toMatch(
      new RegExp(
        `^hook-dispatch-codex-[0-9a-f]{12}-codex-node${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8$`,
      ),
    );
    const path = join(sb.cacheDir, file!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readCodeCache(path)).not.toBeNull();
    // A used cache is not written again: its mtime stays where the test put it.
    utimesSync(path, 1_000_000, 1_000_000);
    const second = sb.run();
    expect(second.stdout).toBe(first.stdout);
    expect(statSync(path).mtimeMs).toBe(1_000_000_000);
  });

  it('keeps the dispatch and the other events in separate bundles and caches', () => {
    const sb = sandbox();
    expect(sb.warm().status).toBe(0);
    const rollout = join(root, 'test/fixtures/codex/rollouts/child-cheaper.child.at-SubagentStop.jsonl');
    const { _meta: m, ...stop } = JSON.parse(
      readFileSync(join(root, 'test/fixtures/codex/SubagentStop.child-cheaper.json'), 'utf8'),
    ) as Record<string, unknown>;
    void m;
    const r = sb.run('codex', 'SubagentStop', { ...stop, cwd: sb.dir, agent_transcript_path: rollout });
    expect(r.status).toBe(0);
    expect(sb.files().map((f) => f.split('-').slice(0, 2).join('-'))).toEqual(['hook-dispatch', 'hook-events']);
  });

  it('ignores a damaged cache (one copy changed, or cut short), answers from source and replaces it', () => {
    for (const damage of ['flip', 'truncate', 'garbage'] as const) {
      const sb = sandbox();
      const expected = sb.warm().stdout;
      const path = join(sb.cacheDir, sb.files()[0]!);
      const good = readFileSync(path);
      let bad = Buffer.from(good);
      if (damage === 'flip') for (let i = 0; i < 64; i++) bad[8 + ((i * 7919) % ((bad.length - 8) >> 1))]! ^= 0xff;
      if (damage === 'truncate') bad = bad.subarray(0, bad.length >> 1);
      if (damage === 'garbage') bad = Buffer.alloc(good.length, 0xa5);
      writeFileSync(path, bad);
      const r = sb.run();
      expect({ damage, status: r.status, signal: r.signal }).toEqual({ damage, status: 0, signal: null });
      expect(r.stdout).toBe(expected);
      expect(readCodeCache(path)).not.toBeNull();
    }
  });

  it('replaces data V8 rejects (made by another build of the code) instead of trusting it', () => {
    const sb = sandbox();
    const expected = sb.warm().stdout;
    const path = join(sb.cacheDir, sb.files()[0]!);
    // Well-formed for our check, but not V8 data for this source: V8 must reject it and the loader rewrite it.
    writeFileSync(path, encodeCodeCache(Buffer.alloc(4096, 1)));
    const r = sb.run();
    expect(r.stdout).toBe(expected);
    expect(readFileSync(path).length).toBeGreaterThan(8 + 2 * 4096);
  });

  it('keeps one file per harness (each holds what its own handlers compiled); an unknown harness name never reaches a path', () => {
    const sb = sandbox();
    const { _meta: _m, ...claudePayload } = JSON.parse(
      readFileSync(join(root, 'test/fixtures/claude/PreToolUse.basic.json'), 'utf8'),
    ) as Record<string, unknown>;
    void _m;
    expect(sb.warm('codex').status).toBe(0);
    expect(sb.warm('claude', 'PreToolUse', { ...claudePayload, cwd: sb.dir }).status).toBe(0);
    expect(sb.run('../../evil', 'PreToolUse').status).toBe(0);
    const variants = sb.files().map((f) => /^(hook-[a-z-]+?)-[0-9a-f]{12}-(\w+)-node/.exec(f)?.slice(1).join(' '));
    expect(variants).toEqual(['hook-dispatch-claude claude', 'hook-dispatch-codex codex', 'hook-events other']);
  });

  it('removes caches of other builds and of bundles this build does not have, keeps other Node versions of this build', () => {
    const sb = sandbox();
    sb.warm();
    const current = sb.files()[0]!;
    const build = /^hook-dispatch-codex-([0-9a-f]{12})-/.exec(current)![1]!;
    mkdirSync(sb.cacheDir, { recursive: true });
    const otherBuild = 'hook-dispatch-codex-000000000000-codex-nodev20.0.0-x64.v8';
    const otherNode = `hook-dispatch-codex-${build}-codex-nodev99.0.0-x64.v8`;
    const events = 'hook-events-000000000000-codex-nodev20.0.0-x64.v8';
    // The single dispatch bundle of earlier builds.
    const retired = 'hook-dispatch-80f792d5da99-codex-nodev20.20.2-x64.v8';
    const foreign = 'not-ours.v8';
    for (const f of [otherBuild, otherNode, events, retired, foreign]) writeFileSync(join(sb.cacheDir, f), 'x');
    writeFileSync(join(sb.cacheDir, current), 'damaged'); // forces a rewrite, which is when old files go
    sb.run();
    expect(sb.files()).toEqual([current, otherNode, foreign].sort());
  });

  it('still answers when the cache directory cannot be written, and says why in the diagnostic log', () => {
    const sb = sandbox();
    mkdirSync(join(sb.env.TIERGATE_HOME, 'data'), { recursive: true });
    writeFileSync(join(sb.env.TIERGATE_HOME, 'data', 'code-cache'), 'not a directory');
    const r = sb.warm();
    expect(r.status).toBe(0);
    expect(denies(r.stdout)).toBe(true);
    expect(readFileSync(join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')).toContain('hook:code-cache');
  });

  it('a missing bundle: the harness proceeds (exit 0, no answer) and stderr says why', () => {
    const sb = sandbox();
    const dist = join(sb.dir, 'dist');
    mkdirSync(dist);
    writeFileSync(join(dist, 'hook.cjs'), readFileSync(hook));
    chmodSync(join(dist, 'hook.cjs'), 0o644);
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
