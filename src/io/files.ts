/**
 * The only module that writes files. Ledger (through SQLite's own I/O), diagnostics, spools, price cache, installer
 * edits: all go through here, so a review of what tiergate writes is one file. Everything it creates is user-only.
 */
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  statSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { kindOf, RefusedFile } from './read-capped.js';
import { dirName, joinPath } from './paths.js';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export function ensureDir(dir: string): void {
  // Mostly there already: one stat, where mkdir would fail with EEXIST and build an Error (its stack, its message)
  // before the same stat (tryMkdir). The budget dispatch path ensures the data dir twice a hook.
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
  makeDirs(dir, DIR_MODE);
}

/** Deeper than any real path: a bound on makeDirs' climb, never reached by a real data dir. */
const MAX_DIR_DEPTH = 256;

/**
 * mkdir -p with a bound. Node's own `mkdirSync(…, { recursive: true })` (20.x) never returns where mkdir(2) says
 * ENOENT although the parent exists (`/proc/nope`: the parent is there, the child can never be): it creates the
 * parent, retries the child, and loops for ever. Here each missing level is created once and a second ENOENT is
 * thrown, naming the path.
 */
function makeDirs(dir: string, mode: number, depth = 0): void {
  if (tryMkdir(dir, mode)) return;
  const parent = dirName(dir);
  // No parent to make, or it is there now: mkdir's own ENOENT (naming the path) is final, never retried.
  if (parent !== dir && depth < MAX_DIR_DEPTH) {
    makeDirs(parent, mode, depth + 1);
    if (tryMkdir(dir, mode)) return;
  }
  mkdirSync(dir, { mode });
}

/** true when `dir` is (now) a directory; false on ENOENT (a missing parent); any other error throws. */
function tryMkdir(dir: string, mode: number): boolean {
  try {
    mkdirSync(dir, { mode });
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'EEXIST' && statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return true;
    throw err;
  }
}

/**
 * Throws, naming the path, unless `dir` exists (or can be created) and a file can be created in it: what every
 * command checks of the data dir before it starts, so an unusable one ends it at once with one line.
 */
export function checkWritableDir(dir: string): void {
  ensureDir(dir);
  const probe = joinPath(dir, `.probe-${process.pid}-${Date.now()}`);
  closeSync(
    openSync(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE),
  );
  rmSync(probe, { force: true });
}

/** `<path>.tmp-<pid>-<ms>`: the temp name writeFileAtomic writes under before its rename. */
const TEMP_NAME = /\.tmp-\d+-\d+$/;

/**
 * Write through a temp file in the same directory and rename, so a reader never sees half a file. `durable: false`
 * skips the fsync, for a cache whose loss after a crash costs only its rebuilding (a reader must check what it reads).
 * The temp file is created exclusively (a link planted under its name is never written through) and removed when any
 * step fails: a full disk must not leave it behind (pruneTempFiles takes what a killed writer leaves).
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  { mode = FILE_MODE, durable = true }: { mode?: number; durable?: boolean } = {},
): void {
  ensureDir(dirName(path));
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const fd = openSync(tmp, 'wx', mode);
  try {
    try {
      writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
      // umask only removed bits at open: the mode asked for, exactly (an installer keeps a config file's 0644).
      fchmodSync(fd, mode);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** writeSync may write less than asked (a disk filling up writes what fits, then fails): loop until all is out. */
function writeAll(fd: number, data: Uint8Array): void {
  for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
}

/**
 * Overwrite a small cache file in place (no temp file, no rename: a rename costs ~1 ms on a loaded overlay filesystem,
 * measured in bench/child-stop.mjs), never through a link, user-only. A reader may see it torn, so only a cache whose
 * reader treats an unparsable file as absent may use it (observer/child-spend.ts).
 */
export function overwriteCache(path: string, data: string): void {
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
    FILE_MODE,
  );
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RefusedFile(path, kindOf(st));
    const buf = Buffer.from(data);
    writeAll(fd, buf);
    ftruncateSync(fd, buf.length);
  } finally {
    closeSync(fd);
  }
}

/** A temp file this old was left by a writer killed before its rename (an atomic write takes milliseconds). */
export const ORPHAN_TEMP_MS = 60_000;

/**
 * Removes the temp files writeFileAtomic's writers left in `dir` (killed between open and rename) once older than
 * ORPHAN_TEMP_MS, so a younger one, whose writer may still be at work, stays. Entries are looked at with lstat and
 * removed as entries: a link under a temp name goes, its target is never touched. Returns how many went.
 */
export function pruneTempFiles(dir: string, now = Date.now()): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    if (!TEMP_NAME.test(name)) continue;
    const path = joinPath(dir, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st || st.isDirectory() || st.mtimeMs > now - ORPHAN_TEMP_MS) continue;
    rmSync(path, { force: true });
    removed++;
  }
  return removed;
}

/**
 * Append one record to a size-bounded file: when it would pass maxBytes, the file is rotated to `<path>.1`
 * (one generation kept), so the pair never exceeds 2 × maxBytes. A file this call creates needs neither its size nor
 * its mode checked.
 */
export function appendBounded(path: string, line: string, maxBytes: number): void {
  const data = Buffer.from(line);
  let fd = openNewForAppend(path);
  try {
    if (fd === null) {
      fd = openCreating(path);
      const st = fstatSync(fd);
      // Non-blocking and O_NOFOLLOW got it open without waiting or following: still only a regular file is written.
      if (!st.isFile()) throw new RefusedFile(path, kindOf(st));
      if (st.size > 0 && st.size + data.length > maxBytes) {
        closeSync(fd);
        fd = null;
        renameSync(path, `${path}.1`);
        fd = openCreating(path);
      } else if (st.size > 0 && !checkedModes.has(path)) {
        // An existing file keeps the mode it had: make it user-only once (a new one is FILE_MODE from open already).
        // Through the descriptor: chmod on the path would follow a link put there since.
        fchmodSync(fd, FILE_MODE);
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
 * Appends one line (a single write: O_APPEND keeps whole lines of writers that take turns) to a small file inside the
 * data dir, created user-only, never through a link, only to a regular file (an existing one is made user-only). No
 * rotation, no bound: the caller empties the file (emptyFile) and bounds its reads. What the spend reservations use
 * instead of a rewrite of the summary (observer/spend-held.ts).
 */
export function appendLine(path: string, line: string): void {
  const { fd } = openAppendable(path);
  try {
    writeAll(fd, Buffer.from(line));
  } finally {
    closeSync(fd);
  }
}

/**
 * A descriptor to append to `path` (created user-only, never through a link) and its fstat: only a regular file
 * (RefusedFile, closed), and an existing one made user-only. The caller closes it.
 */
function openAppendable(path: string): { fd: number; st: Stats } {
  const fd = openCreating(path);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RefusedFile(path, kindOf(st));
    if ((st.mode & 0o077) !== 0) fchmodSync(fd, FILE_MODE);
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * Appends one line (a single write: O_APPEND keeps whole lines of writers that append at once) to a file that any
 * process may append to and another may claim by renaming it at any moment (the spool: a drainer renames, reads,
 * deletes). A line written through a descriptor opened just before the rename can land after the drainer's last read
 * and be deleted with the file. So after writing, unless the path still names the very file written to (its inode),
 * the line is written again under it (drain inserts are idempotent: a duplicate line is harmless, a lost one is not).
 * Found by bench/ledger-concurrency.mjs: 2 of 3,200 completions lost with 64 writers draining each other.
 * Created user-only (an existing one is made so), never through a link, only to a regular file. Over `maxBytes` the
 * file is first set aside under a name of its own, `<path>.<time>-<pid>-<n>.jsonl` (unless another writer did so
 * meanwhile), which the drain claims like any spool file: every process shares this file, so dropping an older
 * generation, as appendBounded does, would drop other processes' records.
 */
export function appendBoundedClaimable(path: string, line: string, maxBytes: number): void {
  const data = Buffer.from(line);
  let rotated = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { fd, st } = openAppendable(path);
    let kept = false;
    try {
      if (!rotated && st.size > 0 && st.size + data.length > maxBytes) {
        rotated = true;
        if (sameFile(lstatSync(path, { throwIfNoEntry: false }), st))
          renameSync(path, `${path}.${Date.now().toString(36)}-${process.pid}-${++setAside}.jsonl`);
        continue; // written to the file under the name now, never to the one set aside
      }
      writeAll(fd, data);
      kept = sameFile(lstatSync(path, { throwIfNoEntry: false }), st);
    } finally {
      closeSync(fd);
    }
    if (kept) return;
  }
}

/** Files this process set aside (appendBoundedClaimable): with its pid and the time, a name no one else gives. */
let setAside = 0;

const sameFile = (a: Stats | undefined, b: Stats): boolean => a !== undefined && a.ino === b.ino && a.dev === b.dev;

/**
 * A new file at `path` (FILE_MODE; umask only removes bits), or null when one is there already. Paths this process has
 * seen existing are not tried again: an in-process plugin (OpenCode, pi) appends to its diagnostics log many times.
 */
function openNewForAppend(path: string): number | null {
  if (existing.has(path)) return null;
  try {
    return openCreating(path, APPEND_NEW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    existing.add(path);
    return null;
  }
}

const existing = new Set<string>();

/**
 * Append-only, never through a link at `path` (a diagnostics.log or spool file linked elsewhere would append to and chmod
 * its target; a dangling one would create it), never waiting for a FIFO's reader (a FIFO opens at once or fails with
 * ENXIO, and is refused by the caller's fstat).
 */
const APPEND =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  constants.O_NOFOLLOW |
  constants.O_NONBLOCK |
  constants.O_NOCTTY;
const APPEND_NEW = APPEND | constants.O_EXCL;

function openAppend(path: string, flags: number): number {
  try {
    return openSync(path, flags, FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedFile(path, 'symbolic link');
    throw err;
  }
}

/** Opens for append, creating the directory only when it is missing (a dispatch hook appends once per process). */
function openCreating(path: string, flags = APPEND): number {
  try {
    return openAppend(path, flags);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    ensureDir(dirName(path));
    return openAppend(path, flags);
  }
}

/**
 * Writes `text` to an open descriptor synchronously: the command hook's answer on fd 1, without building
 * process.stdout (its stream, net and tty stacks). Returns what could not be
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

/**
 * Removes a file (a link itself, never its target); nothing there is no error. unlink(2), not rmSync: Node 20's rmSync
 * loads its rimraf module and lstats first, 0.7 M instructions on the first call (Node 20.20), and the budget dispatch path calls
 * this once a hook to drop the spend lock (bench/README.md, "Session 13").
 */
export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * Make an existing file user-only (the SQLite ledger and its WAL are created by SQLite itself). A link there is refused
 * (RefusedFile), never chmodded through: the ledger calls this before SQLite opens, and SQLite would follow it.
 */
export function restrictToUser(path: string): void {
  withExistingFile(path, constants.O_RDONLY, (fd) => fchmodSync(fd, FILE_MODE));
}

/** Empties a regular file in place (never through a link; absent: nothing to do). */
export function emptyFile(path: string): void {
  withExistingFile(path, constants.O_WRONLY, (fd) => ftruncateSync(fd, 0));
}

/**
 * `fn` on a descriptor of the regular file at `path` (opened with `access`), never through a link (RefusedFile) nor
 * anything but a regular file; absent: nothing done.
 */
function withExistingFile(path: string, access: number, fn: (fd: number) => void): void {
  let fd: number;
  try {
    fd = openSync(path, access | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ELOOP') throw new RefusedFile(path, 'symbolic link');
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RefusedFile(path, kindOf(st));
    fn(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Create an empty user-only file if it does not exist, without touching an existing one. SQLite gives its -wal and
 * -shm files the database file's mode, so creating the ledger 0600 before SQLite opens it keeps all three private.
 * Only a regular file is accepted (RefusedFile): a link there would make SQLite write to its target.
 */
export function ensureFile(path: string, mode = FILE_MODE): void {
  ensureDir(dirName(path));
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_RDONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
      mode,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedFile(path, 'symbolic link');
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RefusedFile(path, kindOf(st));
  } finally {
    closeSync(fd);
  }
}

/**
 * A directory of tiergate's own inside the data dir (spool, code-cache, prices): created user-only when
 * absent; an existing one is made user-only. Anything but a real directory there (a link above all: the drain would
 * read and delete every spool file of its target) is refused with RefusedFile, so
 * nothing is written, read or removed through it. Checked once per process and directory.
 */
export function ensurePrivateDir(dir: string): void {
  if (privateDirs.has(dir)) return;
  if (!checkDir(dir)) {
    makeDirs(dir, DIR_MODE);
    checkDir(dir);
  }
  privateDirs.add(dir);
}

/** ensurePrivateDir for a reader that has nothing to do when the directory is absent: false then, and nothing is created. */
export function existingPrivateDir(dir: string): boolean {
  if (privateDirs.has(dir)) return true;
  // Often absent (the spend journal on a dispatch): an lstat says so without the Error a failed open(2) builds.
  if (!lstatSync(dir, { throwIfNoEntry: false })) return false;
  if (!checkDir(dir)) return false;
  privateDirs.add(dir);
  return true;
}

const privateDirs = new Set<string>();

/**
 * false when absent; throws RefusedFile for anything but a directory (a link is not followed: O_NOFOLLOW); tightens
 * the mode.
 */
function checkDir(dir: string): boolean {
  let fd: number;
  try {
    fd = openSync(dir, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code !== 'ELOOP' && code !== 'ENOTDIR') throw err;
    // Rare (a refusal): what stands there, for the message.
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) return false;
    throw new RefusedFile(dir, kindOf(st), 'directory');
  }
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, DIR_MODE);
  } finally {
    closeSync(fd);
  }
  return true;
}

const DIR_FLAGS =
  constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * The data dir itself made user-only. It may be a link of the user's own (onto another disk, say): the data dir is where
 * the user points tiergate, and it is what is inside it that is never followed. Absent: nothing to do.
 */
export function restrictDirToUser(dir: string): void {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (st?.isDirectory() && (st.mode & 0o077) !== 0) chmodSync(dir, DIR_MODE);
}

/**
 * Create a file only if it does not exist yet (O_CREAT|O_EXCL): the primitive behind non-blocking locks.
 * Returns false when the file is already there; any other error throws.
 */
export function createExclusive(path: string, data: string, mode = FILE_MODE): boolean {
  let fd: number;
  try {
    fd = openExclusive(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    // Nothing to write, no write: an empty marker or lock is the create alone (the spend lock: spend-lock.ts).
    if (data.length > 0) writeSync(fd, Buffer.from(data));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** What link(2) says where the file system has no hard links (vfat, some network and FUSE mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EMLINK', 'ENOSYS']);

/**
 * createExclusive(path, '') without allocating an inode: `path` made a second name of `base` by link(2), which fails
 * with EEXIST like O_EXCL while `path` is there. `base` (empty, user-only, beside it) is created the first time only.
 * On ext4 without a journal (this project's CI machines) a new inode is found by scanning past every one deleted in the
 * last five minutes, so a create-and-delete lock taken once a hook cost 0.01 to 1 ms a create, growing with every
 * other file deleted nearby (bench/README.md, "Session 18"); a second name costs ~7 µs anywhere. Where the file system
 * has no hard links, the lock is the O_EXCL create. false: `path` is there already.
 * A symbolic link put at `base` is never written through: Linux's link(2) makes the lock a second name of the link
 * itself (macOS's, of its target).
 */
export function createExclusiveLink(path: string, base: string): boolean {
  for (let attempt = 0; ; attempt++) {
    try {
      linkSync(base, path);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') return false;
      if (NO_HARD_LINKS.has(code)) return createExclusive(path, '');
      // No base yet (or no directory): made once, then linked again.
      if (code !== 'ENOENT' || attempt > 0) throw err;
      createExclusive(base, '');
    }
  }
}

/**
 * open(O_CREAT|O_EXCL), creating the directory only when the open says it is missing: no stat before each create (the
 * budget dispatch path takes its lock this way once a hook; bench/README.md, "Session 15").
 */
function openExclusive(path: string, mode: number): number {
  try {
    return openSync(path, 'wx', mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    ensureDir(dirName(path));
    return openSync(path, 'wx', mode);
  }
}

/** Rename within one directory (spool hand-off, lock release). */
export function moveFile(from: string, to: string): void {
  renameSync(from, to);
}

/** A fresh user-only directory under the OS temp dir (`tiergate demo`'s throw-away home). */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(joinPath(tmpdir(), prefix));
}

/** Remove a directory tree this process created (the demo's temp home); never called on a user path. */
export function removeTree(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Removes what stands at `path` in the data dir, a directory with everything in it: a link there, or anywhere inside,
 * is removed as a link, never followed (rmSync looks with lstat). false when nothing was there.
 */
export function removeNoFollow(path: string): boolean {
  if (!lstatSync(path, { throwIfNoEntry: false })) return false;
  rmSync(path, { recursive: true, force: true });
  return true;
}

/** Removes a directory only when it is empty (what uninstall does with the folders install created); false if not. */
export function removeEmptyDir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}
