/**
 * dist/hook.cjs: runs the bundle that serves this hook event (bundles.ts) from V8's compiled code when a valid copy is
 * cached, so a hook process does not parse and compile its JavaScript again on every dispatch. Node 20 has no module
 * compile cache (module.enableCompileCache is 22.1+), hence vm.Script's cachedData.
 *
 * V8 11.3 (Node 20) does not checksum cached data: a corrupted file crashes the process with SIGSEGV/SIGTRAP (seen:
 * test/unit/hook-runner/code-cache.test.ts). So the file holds the data twice and is used only when both copies are
 * equal byte for byte (one memcmp, ~50x cheaper than hashing it in JavaScript), and it is written atomically. Anything
 * amiss, and the bundle is compiled from source as it would be without a cache. Reads only: the bundle writes.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { childPath, CODE_CACHE_DIR, dataDir, type Env } from '../io/paths.js';
import { READ_FLAGS_NOFOLLOW } from '../io/read-capped.js';
import { fnv1a32 } from '../io/text.js';
import { bundleFor, cacheVariant, type DispatchEvents, type HookBundle } from './bundles.js';

/** What each hook bundle exports (src/entries/hook-dispatch-<harness>.ts, hook-events.ts). */
export type HookBundleExports = {
  /** `buildId`: this bundle's content hash (absent when started without one), which keys what it keeps across runs. */
  main(argv: string[], opts?: { buildId?: string }): Promise<number>;
  saveCodeCache(path: string, data: Buffer, current: readonly string[]): void;
  /** False when a later run of this bundle will make a leaner code cache (a dispatch bundle that just wrote its memo). */
  keepCodeCache?(): boolean;
};

/** Content hashes of the bundles, put into dist/hook.cjs by scripts/build.mjs: a rebuilt bundle never meets old code. */
export type BuildIds = Partial<Record<HookBundle, string>>;

const MAGIC = Buffer.from('TGV8');
const HEADER = MAGIC.length + 4;

export function encodeCodeCache(data: Buffer): Buffer {
  const head = Buffer.alloc(HEADER);
  MAGIC.copy(head);
  head.writeUInt32LE(data.length, MAGIC.length);
  return Buffer.concat([head, data, data]);
}

/** Reads all `buf` from `fd` at `pos`; false at an early end of file. */
function readFully(fd: number, buf: Buffer, pos: number): boolean {
  for (let off = 0; off < buf.length; ) {
    const got = readSync(fd, buf, off, buf.length - off, pos + off);
    if (got === 0) return false;
    off += got;
  }
  return true;
}

/**
 * The cached data in the file at `path`, or null when the file is absent, unreadable, or not two equal copies of
 * exactly the length its header declares. Read through a descriptor by that length: the open/read/close a hook needs
 * for its stdin anyway, where readFileSync's own buffer path is a first use of several more functions of Node's (each
 * compiled on its first call) and one 180 KB buffer. The one check of the format: doctor uses it too.
 */
export function readCodeCache(path: string): Buffer | null {
  let fd: number;
  try {
    // Inside the data dir: a link is not followed, a FIFO not waited for (it reads as empty: no cache). No fstat: what
    // opens this way and is not a regular file fails the checks below (a directory's read throws EISDIR).
    fd = openSync(path, READ_FLAGS_NOFOLLOW);
  } catch {
    return null; // none yet, or a link
  }
  try {
    const head = Buffer.allocUnsafe(HEADER);
    if (!readFully(fd, head, 0)) return null;
    for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC[i]) return null;
    // Byte by byte: readUInt32LE would be one more of Node's functions to compile on the way.
    const n = (head[4]! | (head[5]! << 8) | (head[6]! << 16) | (head[7]! << 24)) >>> 0;
    if (n === 0) return null;
    const a = Buffer.allocUnsafe(n);
    const b = Buffer.allocUnsafe(n);
    if (!readFully(fd, a, HEADER) || !readFully(fd, b, HEADER + n)) return null;
    if (readSync(fd, head, 0, 1, HEADER + 2 * n) !== 0) return null; // longer than declared
    return a.equals(b) ? a : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** V8 rejects data made under other flags, so differently started processes keep apart files instead of thrashing. */
function flagsTag(env: Env): string {
  const flags = `${process.execArgv.join(' ')}|${env.NODE_OPTIONS ?? ''}`;
  if (flags === '|') return '';
  return `-f${fnv1a32(flags).toString(36)}`;
}

export function codeCacheDir(env: Env): string {
  return childPath(dataDir(env), CODE_CACHE_DIR);
}

/** `variant`: bundles.ts's cacheVariant, the harness the file serves. */
export function codeCachePath(env: Env, bundle: HookBundle, buildId: string, variant: string): string {
  return childPath(
    codeCacheDir(env),
    `${bundle}-${buildId}-${variant}-node${process.version}-${process.arch}${flagsTag(env)}.v8`,
  );
}

const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;

type Loaded = { exports: HookBundleExports; script: Script | null; fromCache: boolean };

/**
 * `load` is dist/hook.cjs's own require: the bundles sit beside it and require only Node's modules (and better-sqlite3
 * from the same node_modules), so it resolves for them what their own would, without node:module (~0.2 ms to load).
 */
function loadBundle(file: string, cachePath: string | null, load: NodeJS.Require): Loaded {
  if (cachePath) {
    let script: Script | null = null;
    try {
      const source = readFileSync(file, 'utf8');
      const data = readCodeCache(cachePath);
      script = new Script(wrap(source), { filename: file, ...(data ? { cachedData: data } : {}) });
      const fromCache = data !== null && !script.cachedDataRejected;
      const fn = script.runInThisContext() as (...args: unknown[]) => void;
      const mod = { exports: {} as HookBundleExports };
      fn.call(mod.exports, mod.exports, load, mod, file, dirname(file));
      return { exports: mod.exports, script, fromCache };
    } catch {
      // Fall through to Node's own loader: it reports a broken bundle the usual way.
    }
  }
  return { exports: load(file) as HookBundleExports, script: null, fromCache: false };
}

/** Runs the hook and exits. Never throws: a bundle that cannot load leaves a line on stderr and the harness proceeds. */
export async function startHook(
  distDir: string,
  argv: string[],
  env: Env,
  ids: BuildIds | null,
  load: NodeJS.Require,
  events: DispatchEvents,
): Promise<never> {
  const bundle = bundleFor(events, argv[0] ?? '', argv[1] ?? '');
  const id = ids?.[bundle];
  let code = 0;
  try {
    const cachePath = id ? codeCachePath(env, bundle, id, cacheVariant(events, argv[0] ?? '')) : null;
    const loaded = loadBundle(childPath(distDir, `${bundle}.cjs`), cachePath, load);
    code = await loaded.exports.main(argv, { buildId: id });
    // After the answer is out: only the first run of a build (or after a Node upgrade) pays for this.
    if (loaded.script && cachePath && id && !loaded.fromCache && (loaded.exports.keepCodeCache?.() ?? true))
      loaded.exports.saveCodeCache(
        cachePath,
        encodeCodeCache(loaded.script.createCachedData()),
        Object.entries(ids ?? {}).map(([b, i]) => `${b}-${i}-`),
      );
  } catch (err) {
    process.stderr.write(
      `tiergate: hook could not run (${err instanceof Error ? err.message : String(err)}); the harness proceeds unchanged\n`,
    );
    code = 0;
  }
  process.exit(code);
}
