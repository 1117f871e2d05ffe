/**
 * The command hooks' V8 code cache files in `<data dir>/code-cache/` (hook-runner/loader.ts reads them, code-cache.ts
 * writes them through files.ts): their names and their format. Reads only.
 *
 * V8 does not checksum cached data in release builds (seen on Node 20.20.2 and 24.21.0: one flipped byte in the middle
 * of the data crashes the process with SIGSEGV; V8 checks only its version, flags and the source's length). So a file
 * holds the data twice and is used only when both copies are equal byte for byte (one memcmp, far cheaper than hashing
 * 120 KB in JavaScript, and no module to load for it), at exactly the length its header declares. The header also says
 * how much of the bundle the run that made the data exercised, its `rank` (CodeCacheRank; hook-runner/loader.ts).
 *
 * What dist/hook.cjs calls on every hook is written `const f = (function f() {...})`: V8 compiles a parenthesised
 * function with the script's top level (esbuild keeps the parentheses), where a declaration is preparsed there and parsed
 * again at its first call, and dist/hook.cjs has no code cache of its own on Node 20 (bench/README.md, session 17).
 */
import { closeSync, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { READ_FLAGS_NOFOLLOW } from './read-capped.js';
import { fnv1a32 } from './text.js';

const MAGIC = Buffer.from('TGV8');
/**
 * What the run that made the data exercised, so a file made by a lesser run is replaced once by a fuller one: 0 no
 * dispatch (a hook for another tool), 1 a dispatch let through unchanged, 2 a dispatch the hook answered (corrected,
 * denied, asked): the path a pricier request takes, whose functions a within-ceiling run leaves uncompiled.
 */
export type CodeCacheRank = 0 | 1 | 2;
export const FULL_RANK: CodeCacheRank = 2;

/** MAGIC, the data's length, then its rank. */
const HEADER = MAGIC.length + 8;
/** Far above a real cache (the events bundle's is ~0.5 MB): a bigger header is damage, never a read that size. */
export const CODE_CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** What every cache file's name ends with (observer/tidy.ts prunes by it; the old loader's `hook-*.v8` files differ). */
export const CODE_CACHE_SUFFIX = '.v8cache';

export function encodeCodeCache(data: Uint8Array, rank: CodeCacheRank = FULL_RANK): Buffer {
  const head = Buffer.alloc(HEADER);
  MAGIC.copy(head);
  head.writeUInt32LE(data.length, MAGIC.length);
  head.writeUInt32LE(rank, MAGIC.length + 4);
  return Buffer.concat([head, data, data]);
}

/**
 * V8 rejects data made under other V8 flags (`--max-old-space-size` in NODE_OPTIONS, say): processes started
 * differently keep apart files instead of rewriting each other's.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const flagsTag = (function flagsTag(env: Record<string, string | undefined>): string {
  const flags = `${process.execArgv.join(' ')}|${env.NODE_OPTIONS ?? ''}`;
  return flags === '|' ? '' : `-f${fnv1a32(flags).toString(36)}`;
});

/**
 * The file for one bundle as it is on disk (`st`: its stat) under this Node. V8's own check of cached data looks at
 * the source's length only, so a rebuilt bundle of the same length must never meet the old data: the name carries
 * the bundle's size and mtime, and Node's version and arch (V8's version check would reject another's, but each
 * version keeps its own file instead of rewriting the other's).
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const codeCacheName = (function codeCacheName(
  bundle: string,
  st: Pick<Stats, 'size' | 'mtimeMs'>,
  env: Record<string, string | undefined>,
): string {
  return `${bundle}-${st.size}-${Math.trunc(st.mtimeMs)}-node${process.version}-${process.arch}${flagsTag(env)}${CODE_CACHE_SUFFIX}`;
});

/** What reading found: the data, nothing (no cache yet: not a problem), or why the file cannot be used. */
export type CodeCacheRead =
  | { data: Buffer; rank: CodeCacheRank; problem?: undefined }
  | { data?: undefined; rank?: undefined; problem?: string };

/**
 * The cache directory as the hook finds it: null when it is usable or absent (the writer creates it), else why it is
 * refused (a link is never followed, another user's directory never trusted). lstat: one syscall a hook.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const codeCacheDirProblem = (function codeCacheDirProblem(dir: string, uid = process.getuid?.()): string | null {
  let st: Stats | undefined;
  try {
    st = lstatSync(dir, { throwIfNoEntry: false });
  } catch (err) {
    return `${dir} cannot be looked at (${(err as NodeJS.ErrnoException).code ?? 'error'})`; // ENOTDIR, EACCES
  }
  if (!st) return null;
  if (st.isSymbolicLink()) return `${dir} is a symbolic link: refused, never followed`;
  if (!st.isDirectory()) return `${dir} is not a directory`;
  if (uid !== undefined && st.uid !== uid) return `${dir} belongs to another user`;
  return null;
});

/** Reads all of `buf` from `fd` at `pos`; false at an early end of file. */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const readFully = (function readFully(fd: number, buf: Uint8Array, pos: number): boolean {
  for (let off = 0; off < buf.length; ) {
    const got = readSync(fd, buf, off, buf.length - off, pos + off);
    if (got === 0) return false;
    off += got;
  }
  return true;
});

/**
 * The header's checks on its bytes, not through Buffer's subarray, equals and readUInt32LE: each of those is JavaScript
 * Node compiles at its first call in the hook process.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const isMagic = (function isMagic(head: Uint8Array): boolean {
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC[i]) return false;
  return true;
});
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const uint32le = (function uint32le(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
});

/**
 * The cached data in `<dir>/<name>`. Never throws; never follows a link (ELOOP), never waits for a FIFO (non-blocking
 * open, and fstat refuses what is not a regular file before a byte is read); bounded by CODE_CACHE_MAX_BYTES.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const readCodeCache = (function readCodeCache(path: string): CodeCacheRead {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    return { problem: code === 'ELOOP' ? 'a symbolic link: refused, never followed' : `unreadable (${code})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: 'not a regular file' };
    const head = new Uint8Array(HEADER);
    if (st.size < HEADER || !readFully(fd, head, 0) || !isMagic(head)) return { problem: 'damaged (no header)' };
    const n = uint32le(head, MAGIC.length);
    const kind = uint32le(head, MAGIC.length + 4);
    if (n === 0 || n > CODE_CACHE_MAX_BYTES || st.size !== HEADER + 2 * n || kind > FULL_RANK)
      return { problem: 'damaged (length does not match)' };
    const a = Buffer.allocUnsafe(n);
    const b = Buffer.allocUnsafe(n);
    if (!readFully(fd, a, HEADER) || !readFully(fd, b, HEADER + n)) return { problem: 'damaged (short)' };
    return a.equals(b) ? { data: a, rank: kind as CodeCacheRank } : { problem: 'damaged (its two copies differ)' };
  } catch (err) {
    return { problem: `unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
});
