/**
 * Reads a whole small file, refusing one larger than a cap without reading past it: the policy files and the price
 * catalogs every hook reads. No stat: a size check through fs.statSync builds a Stats object, and a process's first
 * one costs ~0.1 ms (bench/README.md, "Session 4"); the cap is enforced by the read itself.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export class TooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
    this.name = 'TooLarge';
  }
}

/** The file's text (UTF-8), or throws TooLarge past `maxBytes`; errors opening or reading it (ENOENT…) throw as fs's. */
export function readTextCapped(path: string, maxBytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    // One read for any file up to 1 MiB (pages of the buffer that are never filled are never touched), more only
    // beyond; never more than maxBytes + 1 held.
    for (let want = 1024 * 1024; ; want = Math.min(want * 2, 4 * 1024 * 1024)) {
      const buf = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - size));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      size += n;
      if (size > maxBytes) throw new TooLarge(maxBytes);
      chunks.push(n === buf.length ? buf : buf.subarray(0, n));
    }
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString(); // UTF-8 (see parsePayload)
  } finally {
    closeSync(fd);
  }
}
