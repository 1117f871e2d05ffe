/**
 * The one way tiergate opens a file to read it: only a regular file, without ever blocking, and bounded. A policy or
 * transcript path can name a FIFO, a terminal, /dev/zero or a directory (git carries a symlink to any of them), and a
 * plain open(2) of a FIFO waits for a writer with the whole process stopped, past any deadline the hook armed. So the
 * open is non-blocking (a FIFO opens at once, a terminal never becomes the controlling one) and fstat decides before a
 * byte is read. Inside the data dir nothing is followed (`follow: false`): a link there is refused, not read through.
 * The cap is enforced by the read itself.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

export class TooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
    this.name = 'TooLarge';
  }
}

export type FileKind =
  | 'regular file'
  | 'directory'
  | 'symbolic link'
  | 'FIFO'
  | 'character device'
  | 'block device'
  | 'socket'
  | 'socket or absent device'
  | 'unknown file type';

/**
 * Something other than what tiergate expects stands at a path (a FIFO where a file should be, a link inside the data
 * dir): refused, never opened through. `code` lets callers that sort fs errors by errno name report it as one.
 */
export class RefusedFile extends Error {
  readonly code = 'EREFUSED';
  constructor(
    readonly path: string,
    readonly kind: FileKind,
    expected: 'regular file' | 'directory' = 'regular file',
  ) {
    super(`refused: ${kind} where a ${expected} is expected`);
    this.name = 'RefusedFile';
  }
}

export function kindOf(st: Stats): FileKind {
  if (st.isFile()) return 'regular file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symbolic link';
  if (st.isFIFO()) return 'FIFO';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSocket()) return 'socket';
  return 'unknown file type';
}

/** Read-only, never waiting for a FIFO's writer, never taking a terminal as the controlling one. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
/** READ_FLAGS for a path inside the data dir: a symbolic link fails the open (ELOOP) instead of being followed. */
export const READ_FLAGS_NOFOLLOW = READ_FLAGS | constants.O_NOFOLLOW;

/** `follow: false` for a path inside the data dir (its last component is never followed). Default: follow. */
export type ReadOptions = { follow?: boolean };

/**
 * A descriptor on `path` and its size, only if it is a regular file; throws RefusedFile for anything else (a link, with
 * `follow: false`), and fs's own errors (ENOENT…) as they are. The caller closes the descriptor.
 */
export function openRegular(path: string, { follow = true }: ReadOptions = {}): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, follow ? READ_FLAGS : READ_FLAGS_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!follow && code === 'ELOOP') throw new RefusedFile(path, 'symbolic link');
    // What open(2) of a socket says (a harness's stdout behind /proc/self/fd/1 is one), or of a device with no driver.
    if (code === 'ENXIO') throw new RefusedFile(path, 'socket or absent device');
    throw err;
  }
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (!st.isFile()) {
    closeSync(fd);
    throw new RefusedFile(path, kindOf(st));
  }
  return { fd, size: st.size };
}

/** The file's text (UTF-8), or throws TooLarge past `maxBytes`, RefusedFile for what openRegular refuses, fs's errors. */
export function readTextCapped(path: string, maxBytes: number, opts: ReadOptions = {}): string {
  const { fd, size } = openRegular(path, opts);
  try {
    const chunks: Buffer[] = [];
    let got = 0;
    // Sized from fstat: one buffer of the file's size and one byte more (a file that grew since shows as a full buffer
    // and is read on), never more than maxBytes + 1. A 16 KB spend summary used to get a 1 MiB buffer, paid for on every
    // dispatch under a budget (bench/README.md, "Session 15"). A size of 0 says nothing (a /proc file): read in steps.
    let want = size > 0 ? size + 1 : 64 * 1024;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - got));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      got += n;
      if (got > maxBytes) throw new TooLarge(maxBytes);
      chunks.push(n === buf.length ? buf : buf.subarray(0, n));
      // A regular file read short at the size fstat gave is at its end: no read more to find the 0.
      if (size > 0 && n < buf.length && got >= size) break;
      want = Math.min(Math.max(want * 2, 64 * 1024), 4 * 1024 * 1024);
    }
    if (chunks.length === 0) return '';
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString(); // UTF-8 (see parsePayload)
  } finally {
    closeSync(fd);
  }
}

/** The first `maxBytes` of the file as text (a longer file is not an error: its head is what is wanted). */
export function readTextHead(path: string, maxBytes: number, opts: ReadOptions = {}): string {
  const { fd, size } = openRegular(path, opts);
  try {
    const buf = Buffer.allocUnsafe(Math.min(size, maxBytes));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
