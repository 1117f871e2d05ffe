/**
 * Reads a JSONL file backwards, line by line, without ever holding more than one chunk plus one line, and never
 * past `maxBytes` from the end. Transcripts and rollouts grow for hours; only their tail is ever read.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const CHUNK = 64 * 1024;

export type TailScan = {
  /** Lines visited (complete lines only). */
  lines: number;
  /** The scan reached the first byte of the file: nothing older exists. */
  reachedStart: boolean;
  /** Bytes read from the end. */
  bytesRead: number;
};

/**
 * Calls `visit` with each complete line, newest first, until it returns true, the start of the file is reached, or
 * `maxBytes` have been read. A line cut by the byte cap is not visited. Throws if the file cannot be opened.
 */
export function scanLinesBackwards(path: string, maxBytes: number, visit: (line: string) => boolean | void): TailScan {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const limit = Math.max(0, Math.min(size, maxBytes));
    let pos = size;
    let carry: Buffer = Buffer.alloc(0);
    let lines = 0;
    let atEnd = true;
    // A file not ending in a newline is being written mid-line: that fragment is not a line yet.
    let dropFragment = false;
    while (pos > size - limit) {
      const len = Math.min(CHUNK, pos - (size - limit));
      pos -= len;
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, pos);
      const data = carry.length ? Buffer.concat([buf, carry]) : buf;
      let end = data.length;
      if (atEnd) {
        atEnd = false;
        if (data[end - 1] === 0x0a) end -= 1;
        else dropFragment = true;
      }
      if (dropFragment) {
        const nl = data.lastIndexOf(0x0a, end - 1);
        if (nl < 0) {
          carry = Buffer.from(data.subarray(0, end));
          continue;
        }
        end = nl;
        dropFragment = false;
      }
      let nl = end > 0 ? data.lastIndexOf(0x0a, end - 1) : -1;
      while (nl >= 0) {
        const line = data.subarray(nl + 1, end).toString('utf8');
        end = nl;
        if (line.trim() !== '') {
          lines += 1;
          if (visit(line) === true) return { lines, reachedStart: false, bytesRead: size - pos };
        }
        nl = end > 0 ? data.lastIndexOf(0x0a, end - 1) : -1;
      }
      carry = Buffer.from(data.subarray(0, end));
    }
    // The remainder is the file's first line only when the whole file was read.
    const reachedStart = size <= maxBytes;
    if (reachedStart && !dropFragment && carry.length && carry.toString('utf8').trim() !== '') {
      lines += 1;
      if (visit(carry.toString('utf8')) === true) return { lines, reachedStart: false, bytesRead: size };
    }
    return { lines, reachedStart, bytesRead: size - pos };
  } finally {
    closeSync(fd);
  }
}
