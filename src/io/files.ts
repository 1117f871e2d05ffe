/**
 * The only module that writes files. Ledger (through SQLite's own I/O), diagnostics, spools, price cache, installer
 * edits: all go through here, so a review of what tiergate writes is one file. Everything it creates is user-only.
 */
import {
  chmodSync, closeSync, copyFileSync, existsSync, fstatSync, fsyncSync, mkdirSync, mkdtempSync, openSync,
  renameSync,
  rmSync, writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
}

/**
 * Write through a temp file in the same directory and rename, so a reader never sees half a file. `durable: false`
 * skips the fsync, for a cache whose loss after a crash costs only its rebuilding (a reader must check what it reads).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, { mode = FILE_MODE, durable = true }: { mode?: number; durable?: boolean } = {}): void {
  ensureDir(dirname(path));
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Append one record to a size-bounded file: when it would pass maxBytes, the file is rotated to `<path>.1`
 * (one generation kept), so the pair never exceeds 2 × maxBytes. A file this call creates needs neither its size nor
 * its mode checked, so a hook (one new file, one line) builds no Stats object: the first costs a process ~0.1 ms.
 */
export function appendBounded(path: string, line: string, maxBytes: number): void {
  appendOnce(path, Buffer.from(line), maxBytes);
}

function appendOnce(path: string, data: Buffer, maxBytes: number): void {
  let fd = openNewForAppend(path);
  try {
    if (fd === null) {
      fd = openCreating(path);
      const st = fstatSync(fd);
      if (st.size > 0 && st.size + data.length > maxBytes) {
        closeSync(fd);
        renameSync(path, `${path}.1`);
        fd = openCreating(path);
      } else if (st.size > 0 && !checkedModes.has(path)) {
        // An existing file keeps the mode it had: make it user-only once (a new one is FILE_MODE from open already).
        chmodSync(path, FILE_MODE);
        checkedModes.add(path);
      }
    }
    writeSync(fd, data);
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

const checkedModes = new Set<string>();

/**
 * appendBounded for a file another process may claim by renaming it at any moment (the spool: a drainer renames,
 * reads, deletes). A line written through a descriptor opened just before the rename can land after the drainer's
 * last read and be deleted with the file. So after writing, if the path is gone, the line is written again under it
 * (drain inserts are idempotent: a duplicate line is harmless, a lost one is not). Found by
 * bench/ledger-concurrency.mjs: 2 of 3,200 completions lost with 64 writers draining each other.
 * "Gone" is enough: a spool path names one process's file (pid and time), and only that process, whose appends never
 * interleave, creates a file under it again.
 */
export function appendBoundedClaimable(path: string, line: string, maxBytes: number): void {
  const data = Buffer.from(line);
  for (let attempt = 0; attempt < 3; attempt++) {
    appendOnce(path, data, maxBytes);
    if (existsSync(path)) break;
  }
}

/**
 * A new file at `path` (FILE_MODE; umask only removes bits), or null when one is there already. Paths this process has
 * seen existing are not tried again: an in-process plugin appends to its spool on every dispatch.
 */
function openNewForAppend(path: string): number | null {
  if (existing.has(path)) return null;
  try {
    return openCreating(path, 'ax');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    existing.add(path);
    return null;
  }
}

const existing = new Set<string>();

/** Opens for append, creating the directory only when it is missing (a dispatch hook appends once per process). */
function openCreating(path: string, flags = 'a'): number {
  try {
    return openSync(path, flags, FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    ensureDir(dirname(path));
    return openSync(path, flags, FILE_MODE);
  }
}

/**
 * Writes `text` to an open descriptor synchronously: the command hook's answer on fd 1, without building
 * process.stdout (its stream/net/tty stacks are ~1 ms of a hook process, bench/README.md). Returns what could not be
 * written because the descriptor is non-blocking and full (EAGAIN), for the caller to hand to a stream; null when all
 * of it was written.
 */
export function writeToDescriptor(fd: number, text: string): Buffer | null {
  const data = Buffer.from(text);
  let off = 0;
  while (off < data.length) {
    try {
      off += writeSync(fd, data, off, data.length - off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return data.subarray(off);
      throw err;
    }
  }
  return null;
}

/** Copy a file aside before editing it (installer). Returns the backup path, or null when there was no file. */
export function backupFile(path: string, suffix: string): string | null {
  if (!existsSync(path)) return null;
  const backup = `${path}.${suffix}`;
  copyFileSync(path, backup);
  chmodSync(backup, FILE_MODE);
  return backup;
}

export function removeFile(path: string): void {
  rmSync(path, { force: true });
}

/** Make an existing file user-only (the SQLite ledger and its WAL are created by SQLite itself). */
export function restrictToUser(path: string): void {
  if (existsSync(path)) chmodSync(path, FILE_MODE);
}

/**
 * Create an empty user-only file if it does not exist, without touching an existing one. SQLite gives its -wal and
 * -shm files the database file's mode, so creating the ledger 0600 before SQLite opens it keeps all three private.
 */
export function ensureFile(path: string, mode = FILE_MODE): void {
  ensureDir(dirname(path));
  closeSync(openSync(path, 'a', mode));
}

/**
 * Create a file only if it does not exist yet (O_CREAT|O_EXCL): the primitive behind non-blocking locks.
 * Returns false when the file is already there; any other error throws.
 */
export function createExclusive(path: string, data: string, mode = FILE_MODE): boolean {
  ensureDir(dirname(path));
  let fd: number;
  try {
    fd = openSync(path, 'wx', mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, Buffer.from(data));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Rename within one directory (spool hand-off, lock release). */
export function moveFile(from: string, to: string): void {
  renameSync(from, to);
}

/** A fresh user-only directory under the OS temp dir (`tiergate demo`'s throw-away home). */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Remove a directory tree this process created (the demo's temp home); never called on a user path. */
export function removeTree(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
