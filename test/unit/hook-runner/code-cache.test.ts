/**
 * dist/hook.cjs runs its bundle from V8's code cache in `<data dir>/code-cache/` (src/hook-runner/loader.ts, written by
 * dist/code-cache.cjs after the answer: src/hook-runner/code-cache.ts; format and names: src/io/code-cache-file.ts).
 * The cache must never change an answer, must be private, is never read or written through a link, and a damaged,
 * foreign or unreadable one is ignored (one diagnostic line) and replaced, never trusted: V8 does not checksum cached
 * data in release builds, so a damaged one would crash the hook.
 */
import { execFileSync, spawnSync } from 'node:child_process';
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
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkCodeCache } from '../../../src/doctor/local.js';
import { saveCodeCache } from '../../../src/hook-runner/code-cache.js';
import { startHook } from '../../../src/hook-runner/loader.js';
import { CODE_CACHE_SUFFIX, codeCacheName, encodeCodeCache, readCodeCache } from '../../../src/io/code-cache-file.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const hook = join(root, 'dist/hook.cjs');
const codexPayload = fixturePayload('codex/PreToolUse.basic.json');

/** A data dir of its own, and a copy of dist/ whose bundles' mtimes a test may change. */
/** A dist/ under `dir` holding only a Codex dispatch bundle of this source. */
function distWithCodexBundle(dir: string, source: string): string {
  const dist = join(dir, 'dist');
  mkdirSync(dist);
  writeFileSync(join(dist, 'hook-dispatch-codex.cjs'), source);
  return dist;
}

function sandbox({ ownDist = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-codecache-'));
  const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') };
  const data = join(env.TIERGATE_HOME, 'data');
  const cacheDir = join(data, 'code-cache');
  let dist = join(root, 'dist');
  if (ownDist) {
    dist = join(dir, 'dist');
    mkdirSync(dist);
    for (const f of ['hook.cjs', 'code-cache.cjs', 'hook-dispatch-codex.cjs', 'policy-load.cjs'])
      writeFileSync(join(dist, f), readFileSync(join(root, 'dist', f)));
  }
  const run = () =>
    spawnSync(process.execPath, [join(dist, 'hook.cjs'), 'codex', 'PreToolUse'], {
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
  const files = () => (existsSync(cacheDir) ? readdirSync(cacheDir).sort() : []);
  const cacheLines = () =>
    log()
      .split('\n')
      .filter((l) => l.includes('hook:code-cache'));
  return { dir, env, data, cacheDir, dist, run, log, files, cacheLines };
}

const denies = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
    .permissionDecision === 'deny';

describe('code cache file format', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-codecache-file-'));
  const file = join(dir, `c${CODE_CACHE_SUFFIX}`);
  const viaFile = (bytes: Buffer) => {
    writeFileSync(file, bytes);
    return readCodeCache(file);
  };

  it('round-trips, and rejects a flipped byte in either copy, a truncation, extra bytes and a foreign header', () => {
    const data = Buffer.alloc(3000, 7);
    data.writeUInt32LE(0xdeadbeef, 1000);
    const good = encodeCodeCache(data);
    expect(viaFile(good)).toEqual({ data, rank: 2 });
    expect(viaFile(encodeCodeCache(data, 0))).toEqual({ data, rank: 0 });
    expect(viaFile(encodeCodeCache(data, 1))).toEqual({ data, rank: 1 });
    // A rank past the known ones is damage, as a length that does not match is.
    const ranked = encodeCodeCache(data);
    ranked.writeUInt32LE(3, 8);
    expect(viaFile(ranked).problem).toContain('damaged');
    for (const i of [0, 3, 4, 7, 8, 11, 12, 12 + 1000, 12 + data.length - 1, 12 + data.length, good.length - 1]) {
      const bad = Buffer.from(good);
      bad[i]! ^= 0x10;
      expect(viaFile(bad), `byte ${i}`).toMatchObject({ problem: expect.stringContaining('damaged') });
    }
    expect(viaFile(good.subarray(0, good.length - 1)).problem).toContain('damaged');
    expect(viaFile(Buffer.concat([good, Buffer.from([0])])).problem).toContain('damaged');
    expect(viaFile(encodeCodeCache(Buffer.alloc(0))).problem).toContain('damaged');
    expect(viaFile(Buffer.alloc(3)).problem).toContain('damaged');
  });

  it('never reads a header-declared length past the cap', () => {
    const head = Buffer.from('TGV8\xff\xff\xff\x7f\x01\x00\x00\x00', 'latin1');
    expect(viaFile(head).problem).toContain('damaged');
  });

  it('absent is no problem; a directory, a link or a FIFO is one, and none of them is read or waited for', () => {
    expect(readCodeCache(join(dir, 'absent'))).toEqual({});
    expect(readCodeCache(dir).problem).toBe('not a regular file');
    writeFileSync(join(dir, 'target'), encodeCodeCache(Buffer.from('x')));
    symlinkSync(join(dir, 'target'), join(dir, 'link'));
    expect(readCodeCache(join(dir, 'link')).problem).toContain('symbolic link');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(readCodeCache(join(dir, 'fifo')).problem).toBe('not a regular file');
  });

  it("names a file by the bundle's size and mtime, Node's version and arch, and the V8 flags", () => {
    const st = { size: 66778, mtimeMs: 1_796_526_408_065.25 };
    const name = codeCacheName('hook-dispatch-codex', st, {});
    // The flags' hash: whatever this test process was started with (vitest's workers may add some).
    const flags = process.execArgv.length ? '-f[0-9a-z]+' : '';
    const version = process.version.replaceAll('.', '\\.');
    expect(name).toMatch(
      new RegExp(`^hook-dispatch-codex-66778-1796526408065-node${version}-${process.arch}${flags}\\.v8cache$`),
    );
    expect(codeCacheName('hook-dispatch-codex', { ...st, mtimeMs: st.mtimeMs + 1 }, {})).not.toBe(name);
    expect(codeCacheName('hook-dispatch-codex', { ...st, size: st.size + 1 }, {})).not.toBe(name);
    expect(codeCacheName('hook-events', st, {})).not.toBe(name);
    expect(codeCacheName('hook-dispatch-codex', st, { NODE_OPTIONS: '--max-old-space-size=64' })).not.toBe(name);
    const real = Object.getOwnPropertyDescriptor(process, 'version')!;
    try {
      Object.defineProperty(process, 'version', { ...real, value: 'v99.0.0' });
      expect(codeCacheName('hook-dispatch-codex', st, {})).toContain('-nodev99.0.0-');
    } finally {
      Object.defineProperty(process, 'version', real);
    }
  });
});

describe('dist/hook.cjs with a code cache', () => {
  it('writes one user-only file on the first hook, uses it after without writing it again, answers the same', () => {
    const sb = sandbox();
    const first = sb.run();
    expect(first.status).toBe(0);
    expect(denies(first.stdout)).toBe(true);
    expect(statSync(sb.cacheDir).mode & 0o777).toBe(0o700);
    const [file, ...more] = sb.files();
    expect(more).toEqual([]);
    const st = statSync(join(root, 'dist/hook-dispatch-codex.cjs'));
    expect(file).toBe(codeCacheName('hook-dispatch-codex', st, {}).replace(/-f[0-9a-z]+(?=\.v8cache$)/, ''));
    const path = join(sb.cacheDir, file!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readCodeCache(path).data?.length).toBeGreaterThan(10_000);
    // A used cache is not written again (a rejected one would be): its inode and mtime stay where they were.
    utimesSync(path, 1_000_000, 1_000_000);
    const ino = statSync(path).ino;
    for (let i = 0; i < 2; i++) expect(sb.run().stdout).toBe(first.stdout);
    expect(statSync(path)).toMatchObject({ ino, mtimeMs: 1_000_000_000 });
    expect(sb.files()).toEqual([file]);
    expect(sb.log()).toBe('');
  });

  it('a cache made by a hook that decided no dispatch is replaced, once, by the first hook that decides one', () => {
    const sb = sandbox();
    const other = {
      ...codexPayload,
      cwd: sb.dir,
      model: 'gpt-6-luna',
      tool_name: 'shell',
      tool_input: { command: 'ls' },
    };
    const r = spawnSync(process.execPath, [hook, 'codex', 'PreToolUse'], {
      input: JSON.stringify(other),
      env: sb.env,
      encoding: 'utf8',
    });
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 0, stdout: '' });
    const path = join(sb.cacheDir, sb.files()[0]!);
    const partial = readCodeCache(path);
    expect(partial.rank).toBe(0);
    // Another such hook leaves it; a dispatch replaces it with data holding the dispatch path too; the next keeps it.
    spawnSync(process.execPath, [hook, 'codex', 'PreToolUse'], { input: JSON.stringify(other), env: sb.env });
    expect(readFileSync(path).equals(encodeCodeCache(partial.data!, 0))).toBe(true);
    expect(denies(sb.run().stdout)).toBe(true);
    const full = readCodeCache(path);
    expect(full.rank).toBe(2);
    expect(full.data!.length).toBeGreaterThan(partial.data!.length);
    const ino = statSync(path).ino;
    expect(denies(sb.run().stdout)).toBe(true);
    expect(statSync(path).ino).toBe(ino);
    expect(sb.log()).toBe('');
  });

  it('a cache made by a dispatch let through is replaced, once, by the first dispatch the hook answers', () => {
    const sb = sandbox();
    // The parent on the pricier model: the same call is within the ceiling, let through without an answer.
    const within = () =>
      spawnSync(process.execPath, [hook, 'codex', 'PreToolUse'], {
        input: JSON.stringify({ ...codexPayload, cwd: sb.dir, model: 'gpt-6-astra' }),
        env: sb.env,
        encoding: 'utf8',
      });
    expect(within()).toMatchObject({ status: 0, stdout: '' });
    const path = join(sb.cacheDir, sb.files()[0]!);
    const allowed = readCodeCache(path);
    expect(allowed.rank).toBe(1);
    // Another dispatch let through leaves it; the first denial replaces it with data holding the denial's path too.
    expect(within().stdout).toBe('');
    expect(readFileSync(path).equals(encodeCodeCache(allowed.data!, 1))).toBe(true);
    expect(denies(sb.run().stdout)).toBe(true);
    const full = readCodeCache(path);
    expect(full.rank).toBe(2);
    expect(full.data!.length).toBeGreaterThan(allowed.data!.length);
    // From then on neither kind writes it again.
    const ino = statSync(path).ino;
    expect(within().stdout).toBe('');
    expect(denies(sb.run().stdout)).toBe(true);
    expect(statSync(path).ino).toBe(ino);
    expect(sb.log()).toBe('');
  });

  it('a rebuilt bundle (another mtime) gets a file of its own; the old one is left to the drain', () => {
    const sb = sandbox({ ownDist: true });
    const first = sb.run();
    const [old] = sb.files();
    const bundle = join(sb.dist, 'hook-dispatch-codex.cjs');
    utimesSync(bundle, new Date(), new Date(Date.now() + 5_000));
    expect(sb.run().stdout).toBe(first.stdout);
    const files = sb.files();
    expect(files).toHaveLength(2);
    expect(files).toContain(old);
    expect(files.find((f) => f !== old)).toContain(`-${Math.trunc(statSync(bundle).mtimeMs)}-`);
  });

  it('a damaged cache (one copy changed, cut short, garbage) is ignored: the hook answers from source, replaces it and says so once', () => {
    for (const damage of ['flip', 'truncate', 'garbage'] as const) {
      const sb = sandbox();
      const expected = sb.run().stdout;
      const path = join(sb.cacheDir, sb.files()[0]!);
      const good = readFileSync(path);
      let bad = Buffer.from(good);
      // Spread over the first copy's data: V8 would crash on some of these (it checks no checksum).
      if (damage === 'flip') for (let i = 0; i < 64; i++) bad[12 + ((i * 7919) % ((bad.length - 12) >> 1))]! ^= 0xff;
      if (damage === 'truncate') bad = bad.subarray(0, bad.length >> 1);
      if (damage === 'garbage') bad = Buffer.alloc(good.length, 0xa5);
      writeFileSync(path, bad);
      const r = sb.run();
      expect({ damage, status: r.status, signal: r.signal }).toEqual({ damage, status: 0, signal: null });
      expect(r.stdout).toBe(expected);
      expect(readCodeCache(path).data).toBeDefined();
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(sb.cacheLines()).toEqual([expect.stringMatching(/damaged.*: replaced/)]);
    }
  });

  it('replaces well-formed data V8 rejects (not made for this source) instead of trusting it', () => {
    const sb = sandbox();
    const expected = sb.run().stdout;
    const path = join(sb.cacheDir, sb.files()[0]!);
    writeFileSync(path, encodeCodeCache(Buffer.alloc(4096, 1)));
    expect(sb.run().stdout).toBe(expected);
    expect(readCodeCache(path).data?.length).toBeGreaterThan(10_000);
    expect(sb.cacheLines()).toEqual([expect.stringContaining('rejected by V8: replaced')]);
  });

  it('a FIFO in place of the cache file: the hook neither waits for it nor writes into it, answers, and replaces it', () => {
    const sb = sandbox();
    const expected = sb.run().stdout;
    const path = join(sb.cacheDir, sb.files()[0]!);
    execFileSync('rm', [path]);
    execFileSync('mkfifo', [path]);
    const r = sb.run();
    expect({ status: r.status, signal: r.signal }).toEqual({ status: 0, signal: null });
    expect(r.stdout).toBe(expected);
    expect(lstatSync(path).isFile()).toBe(true);
    expect(sb.cacheLines()).toEqual([expect.stringContaining('not a regular file: replaced')]);
  });

  it("a link in the cache file's place is never read or written through: replaced by a file of its own", () => {
    const sb = sandbox();
    const expected = sb.run().stdout;
    const path = join(sb.cacheDir, sb.files()[0]!);
    const target = join(sb.dir, 'target');
    writeFileSync(target, readFileSync(path));
    chmodSync(target, 0o644);
    const before = readFileSync(target);
    execFileSync('rm', [path]);
    symlinkSync(target, path);
    expect(sb.run().stdout).toBe(expected);
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(readFileSync(target).equals(before)).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(sb.cacheLines()).toEqual([expect.stringContaining('symbolic link: refused, never followed: replaced')]);
  });

  it("a link in the cache directory's place is refused: never followed, nothing written, one line a hook", () => {
    const sb = sandbox();
    const outside = join(sb.dir, 'outside');
    mkdirSync(outside, { mode: 0o755 });
    chmodSync(outside, 0o755);
    mkdirSync(sb.data, { recursive: true });
    symlinkSync(outside, sb.cacheDir);
    const r = sb.run();
    expect(r.status).toBe(0);
    expect(denies(r.stdout)).toBe(true);
    expect(lstatSync(sb.cacheDir).isSymbolicLink()).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
    expect(statSync(outside).mode & 0o777).toBe(0o755);
    expect(sb.cacheLines()).toEqual([expect.stringContaining('symbolic link')]);
  });

  it('still answers when the cache directory is a file, and says why', () => {
    const sb = sandbox();
    mkdirSync(sb.data, { recursive: true });
    writeFileSync(sb.cacheDir, 'not a directory');
    const r = sb.run();
    expect(r.status).toBe(0);
    expect(denies(r.stdout)).toBe(true);
    expect(sb.cacheLines()).toEqual([expect.stringContaining('not a directory')]);
  });

  it('a data dir that is a file: the hook answers from source and says why the cache is not used', () => {
    const sb = sandbox();
    mkdirSync(join(sb.env.TIERGATE_HOME), { recursive: true });
    writeFileSync(sb.data, 'not a directory');
    const r = sb.run();
    expect(r.status).toBe(0);
    expect(denies(r.stdout)).toBe(true);
    // The log cannot be written either: the line goes to the hook's stderr.
    expect(r.stderr).toMatch(/hook:code-cache.*cannot be looked at \(ENOTDIR\)/);
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

describe('saveCodeCache (dist/code-cache.cjs)', () => {
  const make = () => new Uint8Array([1, 2, 3]);
  const found = (sb: ReturnType<typeof sandbox>, problem?: string) => ({
    dir: sb.cacheDir,
    path: join(sb.cacheDir, `x${CODE_CACHE_SUFFIX}`),
    dirProblem: null,
    problem,
    rank: 2 as const,
  });

  it('creates the directory user-only (an existing one is made so) and the file 0600', () => {
    const sb = sandbox();
    expect(saveCodeCache(sb.env, found(sb), make)).toBe(true);
    expect(statSync(sb.cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(found(sb).path).mode & 0o777).toBe(0o600);
    expect(readCodeCache(found(sb).path).data).toEqual(Buffer.from([1, 2, 3]));
    const sb2 = sandbox();
    mkdirSync(sb2.cacheDir, { recursive: true });
    chmodSync(sb2.cacheDir, 0o755);
    expect(saveCodeCache(sb2.env, found(sb2), make)).toBe(true);
    expect(statSync(sb2.cacheDir).mode & 0o777).toBe(0o700);
    expect(sb.log() + sb2.log()).toBe('');
  });

  it("refuses a directory that is not the user's, and one the hook found refused, with one line each", () => {
    const sb = sandbox();
    mkdirSync(sb.cacheDir, { recursive: true });
    expect(saveCodeCache(sb.env, found(sb), make, (process.getuid?.() ?? 0) + 1)).toBe(false);
    expect(sb.cacheLines()).toEqual([expect.stringContaining('belongs to another user')]);
    expect(readdirSync(sb.cacheDir)).toEqual([]);
    const sb2 = sandbox();
    expect(saveCodeCache(sb2.env, { ...found(sb2), dirProblem: 'a link' }, make)).toBe(false);
    expect(sb2.cacheLines()).toEqual([expect.stringContaining('not used: a link')]);
    expect(existsSync(sb2.cacheDir)).toBe(false);
  });

  it('a write that fails is one line naming the earlier problem too', () => {
    const sb = sandbox();
    mkdirSync(found(sb).path, { recursive: true }); // a directory where the file goes: rename fails
    expect(saveCodeCache(sb.env, found(sb, 'damaged (short)'), make)).toBe(false);
    expect(sb.cacheLines()).toEqual([expect.stringMatching(/damaged \(short\); not saved: /)]);
  });
});

describe('doctor: hook / code cache', () => {
  const doctor = (sb: ReturnType<typeof sandbox>) => checkCodeCache(sb.env)[0]!;

  it('none yet, the files checked as the hook checks them, and a refused directory', () => {
    const sb = sandbox();
    expect(doctor(sb)).toMatchObject({ status: 'info', data: { files: 0 } });
    sb.run();
    expect(doctor(sb)).toMatchObject({ status: 'ok', data: { files: 1, damaged: 0 } });
    writeFileSync(join(sb.cacheDir, `other${CODE_CACHE_SUFFIX}`), 'TGV8 and not much else');
    expect(doctor(sb)).toMatchObject({ status: 'warn', data: { files: 2, damaged: 1 } });
    const sb2 = sandbox();
    mkdirSync(sb2.data, { recursive: true });
    symlinkSync(sb.cacheDir, sb2.cacheDir);
    expect(doctor(sb2)).toMatchObject({ status: 'warn', detail: expect.stringContaining('symbolic link') });
  });
});

describe('startHook (dist/hook.cjs)', () => {
  const dirs: string[] = [];
  afterEach(() => void dirs.splice(0));
  /** Runs the loader in-process with a stand-in `require`; returns the exit code it chose and what it wrote. */
  async function start(distDir: string, load: (id: string) => unknown, env: Record<string, string>) {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await startHook(distDir, ['codex', 'PreToolUse'], load, { codex: ['PreToolUse'] }, env);
      return { code: exit.mock.calls[0]?.[0], stderr: err.mock.calls.map((c) => String(c[0])).join('') };
    } finally {
      exit.mockRestore();
      err.mockRestore();
    }
  }

  it('runs a bundle it cannot read from disk through require, and writes no cache for it', async () => {
    const sb = sandbox();
    const loaded: string[] = [];
    const r = await start(
      '/nonexistent-dist',
      (id) => {
        loaded.push(id);
        return { main: async (argv: string[]) => (argv[0] === 'codex' ? 7 : 1) };
      },
      sb.env,
    );
    expect(r.code).toBe(7);
    expect(loaded).toEqual(['/nonexistent-dist/hook-dispatch-codex.cjs']);
    expect(existsSync(sb.cacheDir)).toBe(false);
  });

  it('a cache writer that cannot load costs the cache, never the hook: the answer stands, stderr says why', async () => {
    const sb = sandbox();
    const dist = distWithCodexBundle(sb.dir, 'exports.main = async (argv) => (argv[0] === "codex" ? 7 : 1);');
    const r = await start(
      dist,
      (id) => {
        throw new Error(`${id}: damaged`);
      },
      sb.env,
    );
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^tiergate: hook code cache not saved \(Error: \S+code-cache\.cjs: damaged\)\n$/);
  });
  it("gives the bundle Node's modules through process.getBuiltinModule, and everything else (all, on a Node without it) through require", async () => {
    const sb = sandbox();
    const dist = distWithCodexBundle(
      sb.dir,
      'exports.main = async () => (require("node:fs") === process.__tgTestFs && require("./policy-load.cjs") === 5 ? 7 : 1);',
    );
    const fs = await import('node:fs');
    const asked: string[] = [];
    const load = (id: string) => {
      asked.push(id);
      if (id === 'node:fs') return fs.default;
      if (id === './policy-load.cjs') return 5;
      throw new Error(`${id}: not here`);
    };
    const real = Object.getOwnPropertyDescriptor(process, 'getBuiltinModule');
    Object.assign(process, { __tgTestFs: fs.default });
    try {
      expect((await start(dist, load, sb.env)).code).toBe(7);
      expect(asked.filter((id) => id !== join(dist, 'code-cache.cjs'))).toEqual(['./policy-load.cjs']);
      asked.splice(0);
      Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true, writable: true });
      expect((await start(dist, load, sb.env)).code).toBe(7);
      expect(asked.filter((id) => id !== join(dist, 'code-cache.cjs'))).toEqual(['node:fs', './policy-load.cjs']);
    } finally {
      if (real) Object.defineProperty(process, 'getBuiltinModule', real);
      delete (process as { __tgTestFs?: unknown }).__tgTestFs;
    }
  });
});
