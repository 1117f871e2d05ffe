/**
 * Bounded reads of JSONL transcripts, never the whole file in memory.
 *
 * readTailLines: backwards from the end in chunks until `stopWhen` says enough or `maxBytes` is spent. Its cost depends
 * on the tail, not on the file size (bench/tail-read.mjs). Claude Code 2.1.328's child transcript ends with a ~36 KB
 * prompt_snapshot line after the assistant line, so a fixed 4 KB tail finds nothing: scan back line by line.
 *
 * readLinesForward: a streaming forward pass for summing usage over a whole transcript (scan, long children), with its
 * own byte cap and a per-line cap (one public report had a 734 MB single-line JSONL record).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export type TailOptions = {
  /** Hard cap on bytes read from the end. */
  maxBytes: number;
  chunkBytes?: number;
  /** Called newest-first with each complete line; return true to stop after this line. */
  stopWhen?: (line: string) => boolean;
};

export type TailResult = {
  /** Complete lines read, oldest first. */
  lines: string[];
  bytesRead: number;
  /** true when the cap stopped the read before the start of the file or stopWhen. */
  truncated: boolean;
  size: number;
};

export function readTailLines(path: string, opts: TailOptions): TailResult {
  const chunkBytes = Math.max(1024, opts.chunkBytes ?? 64 * 1024);
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const newestFirst: string[] = [];
    let pos = size;
    let bytesRead = 0;
    let carry = Buffer.alloc(0);
    let stopped = false;
    let firstChunk = true;
    while (pos > 0 && bytesRead < opts.maxBytes && !stopped) {
      const n = Math.min(chunkBytes, pos, opts.maxBytes - bytesRead);
      const chunk = Buffer.allocUnsafe(n);
      let got = 0;
      while (got < n) {
        const r = readSync(fd, chunk, got, n - got, pos - n + got);
        if (r === 0) break;
        got += r;
      }
      pos -= n;
      bytesRead += n;
      let buf = carry.length ? Buffer.concat([chunk, carry]) : chunk;
      // A trailing newline ends the last line; it does not start an empty one.
      if (firstChunk && buf.length && buf[buf.length - 1] === 0x0a) buf = buf.subarray(0, buf.length - 1);
      firstChunk = false;
      let end = buf.length;
      let nl = buf.lastIndexOf(0x0a, end - 1);
      while (nl >= 0) {
        const line = buf.toString('utf8', nl + 1, end);
        if (line.length) {
          newestFirst.push(line);
          if (opts.stopWhen?.(line)) {
            stopped = true;
            break;
          }
        }
        end = nl;
        nl = end > 0 ? buf.lastIndexOf(0x0a, end - 1) : -1;
      }
      carry = Buffer.from(buf.subarray(0, end));
    }
    if (!stopped && pos === 0 && carry.length) {
      const line = carry.toString('utf8');
      newestFirst.push(line);
      opts.stopWhen?.(line);
      carry = Buffer.alloc(0);
    }
    return { lines: newestFirst.reverse(), bytesRead, truncated: !stopped && pos > 0, size };
  } finally {
    closeSync(fd);
  }
}

export type ForwardOptions = {
  /** Start reading here (incremental scans); default 0. */
  startOffset?: number;
  /** Stop after this many bytes. */
  maxBytes?: number;
  chunkBytes?: number;
  /** Longer lines are skipped without being buffered whole. */
  maxLineBytes?: number;
};

export type ForwardResult = { bytesRead: number; endOffset: number; truncated: boolean; skippedLongLines: number };

/**
 * Calls onLine(buf, start, end) for each complete line; the bytes are valid only during the call. Callers test raw
 * bytes (Buffer.indexOf) before decoding, which keeps a scan of gigabytes cheap.
 */
export function readLinesForward(
  path: string,
  opts: ForwardOptions,
  onLine: (buf: Buffer, start: number, end: number) => void,
): ForwardResult {
  const chunkBytes = Math.max(4096, opts.chunkBytes ?? 1024 * 1024);
  const maxLine = opts.maxLineBytes ?? 64 * 1024 * 1024;
  const maxBytes = opts.maxBytes ?? Number.MAX_SAFE_INTEGER;
  const fd = openSync(path, 'r');
  try {
    let pos = opts.startOffset ?? 0;
    let buf = Buffer.allocUnsafe(chunkBytes);
    let have = 0; // bytes of an unfinished line at buf[0..have)
    let skipping = false;
    let skipped = 0;
    let bytesRead = 0;
    let lastLineEnd = pos; // file offset just past the last newline seen
    for (;;) {
      if (bytesRead >= maxBytes) break;
      if (have === buf.length) {
        const grown = Buffer.allocUnsafe(Math.min(maxLine + 1, buf.length * 2));
        buf.copy(grown, 0, 0, have);
        buf = grown;
      }
      const want = Math.min(buf.length - have, maxBytes - bytesRead);
      const r = readSync(fd, buf, have, want, pos);
      if (r === 0) break;
      pos += r;
      bytesRead += r;
      const limit = have + r;
      let start = 0;
      let nl = buf.indexOf(0x0a, have);
      while (nl >= 0 && nl < limit) {
        if (skipping) skipping = false;
        else if (nl > start) onLine(buf, start, nl);
        lastLineEnd = pos - (limit - nl - 1);
        start = nl + 1;
        nl = buf.indexOf(0x0a, start);
      }
      have = limit - start;
      if (skipping) have = 0;
      else if (have > maxLine) {
        skipping = true;
        skipped++;
        have = 0;
      } else if (start > 0 && have > 0) buf.copy(buf, 0, start, limit);
    }
    // A last line without a newline is complete only at end of file; a capped read leaves it for next time.
    if (have > 0 && !skipping && bytesRead < maxBytes) {
      onLine(buf, 0, have);
      lastLineEnd = pos;
    }
    return { bytesRead, endOffset: lastLineEnd, truncated: bytesRead >= maxBytes, skippedLongLines: skipped };
  } finally {
    closeSync(fd);
  }
}
