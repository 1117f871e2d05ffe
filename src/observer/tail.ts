/**
 * Bounded reads of JSONL transcripts, never the whole file in memory.
 *
 * readTailLines: backwards from the end in chunks until `stopWhen` says enough or `maxBytes` is spent. Its cost depends
 * on the tail, not on the file size (bench/tail-read.mjs). Claude Code 2.1.328's child transcript ends with a ~36 KB
 * prompt_snapshot line after the assistant line, so a fixed 4 KB tail finds nothing: scan back line by line.
 *
 * readLinesForward: a streaming forward pass for summing usage over a whole transcript (scan, long children), with its
 * own byte cap and a per-line cap (one public report had a 734 MB single-line JSONL record).
 *
 * Both open through read-capped.ts's openRegular: a FIFO, device or directory behind a transcript path is refused at
 * once (RefusedFile) instead of stopping the process in open(2); `noFollow` for the spool, inside the data dir.
 */
import { closeSync, readSync } from 'node:fs';
import { openRegular } from '../io/read-capped.js';

export type TailOptions = {
  /** Hard cap on bytes read from the end. */
  maxBytes: number;
  chunkBytes?: number;
  /** Called newest-first with each complete line; return true to stop after this line. */
  stopWhen?: (line: string) => boolean;
  /** A link at the path is refused, not followed (files inside the data dir). */
  noFollow?: boolean;
};

export type TailResult = {
  /** Complete lines read, oldest first. */
  lines: string[];
  bytesRead: number;
  /** true when the cap stopped the read before the start of the file or stopWhen. */
  truncated: boolean;
  size: number;
};

/**
 * The last `\n` at or before `from` (-1 when none). V8's own TypedArray search: Buffer's lastIndexOf is JavaScript in
 * node:buffer that a Node 20 hook compiles on its first call (~0.3 M instructions of a Gemini dispatch; bench/README.md
 * session 16).
 */
const lastNewline = (buf: Uint8Array, from: number): number =>
  from < 0 ? -1 : Uint8Array.prototype.lastIndexOf.call(buf, 0x0a, from);

export function readTailLines(path: string, opts: TailOptions): TailResult {
  const chunkBytes = Math.max(1024, opts.chunkBytes ?? 64 * 1024);
  const { fd, size } = openRegular(path, { follow: !opts.noFollow });
  try {
    const newestFirst: string[] = [];
    let pos = size;
    let bytesRead = 0;
    let carry = Buffer.allocUnsafe(0);
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
      let nl = lastNewline(buf, end - 1);
      while (nl >= 0) {
        const line = buf.subarray(nl + 1, end).toString(); // UTF-8 (hook-runner/core.ts parsePayload says why)
        if (line.length) {
          newestFirst.push(line);
          if (opts.stopWhen?.(line)) {
            stopped = true;
            break;
          }
        }
        end = nl;
        nl = lastNewline(buf, end - 1);
      }
      // A view, not a copy: the next concat copies it out, and its chunk goes with it (and Buffer.from would be one more
      // of Node's functions for a dispatch hook to compile).
      carry = buf.subarray(0, end);
    }
    if (!stopped && pos === 0 && carry.length) {
      const line = carry.toString();
      newestFirst.push(line);
      opts.stopWhen?.(line);
      carry = Buffer.allocUnsafe(0);
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
  /**
   * Only lines containing these bytes reach onLine. Found by one search over each chunk, so the lines without it
   * (most of a transcript's bytes) cost a substring search and nothing else. Must not contain a newline.
   */
  marker?: Buffer;
  /** A link at the path is refused, not followed (the spool, inside the data dir). */
  noFollow?: boolean;
};

export type ForwardResult = { bytesRead: number; endOffset: number; truncated: boolean; skippedLongLines: number };

const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;
/** Grown buffers above this size are dropped after use rather than kept for the next file. */
const KEEP_BUFFER_BYTES = 16 * 1024 * 1024;
// One read buffer reused across calls: a scan opens thousands of files, and a fresh multi-MB buffer per file costs
// more in page faults than the reads themselves. Taken (set to null) while in use, so a nested call allocates its own.
let spare: Buffer | null = null;

/**
 * Node's Buffer.indexOf scans for needles under 8 bytes with memchr + compare, several times faster than its
 * Boyer-Moore path for longer ones (measured on generated transcripts): search the marker's last bytes, then check the
 * rest in place.
 */
const ANCHOR_BYTES = 7;

function indexOfMarker(view: Buffer, marker: Buffer, from: number): number {
  if (marker.length <= ANCHOR_BYTES) return view.indexOf(marker, from);
  const back = marker.length - ANCHOR_BYTES;
  const anchor = marker.subarray(back);
  let i = view.indexOf(anchor, from + back);
  while (i >= 0) {
    if (view.compare(marker, 0, back, i - back, i) === 0) return i - back;
    i = view.indexOf(anchor, i + 1);
  }
  return -1;
}

function takeBuffer(bytes: number): Buffer {
  const b = spare && spare.length >= bytes ? spare : Buffer.allocUnsafe(bytes);
  spare = null;
  return b;
}

function giveBack(b: Buffer): void {
  if (b.length <= KEEP_BUFFER_BYTES && (!spare || spare.length < b.length)) spare = b;
}

/**
 * Calls onLine(buf, start, end) for each complete line (each one containing `marker`, when given); the bytes are valid
 * only during the call. Callers test raw bytes before decoding, which keeps a scan of gigabytes cheap.
 */
export function readLinesForward(
  path: string,
  opts: ForwardOptions,
  onLine: (buf: Buffer, start: number, end: number) => void,
): ForwardResult {
  const chunkBytes = Math.max(4096, opts.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const maxLine = opts.maxLineBytes ?? 64 * 1024 * 1024;
  const maxBytes = opts.maxBytes ?? Number.MAX_SAFE_INTEGER;
  const marker = opts.marker && opts.marker.length > 0 ? opts.marker : null;
  const { fd } = openRegular(path, { follow: !opts.noFollow });
  let buf = takeBuffer(chunkBytes);
  try {
    let pos = opts.startOffset ?? 0;
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
        giveBack(buf);
        buf = grown;
      }
      const want = Math.min(buf.length - have, chunkBytes, maxBytes - bytesRead);
      const r = readSync(fd, buf, have, want, pos);
      if (r === 0) break;
      pos += r;
      bytesRead += r;
      const limit = have + r;
      const view = buf.subarray(0, limit); // searches never run into stale bytes past the read
      let start = 0;
      if (skipping) {
        const nl = view.indexOf(0x0a, have);
        if (nl < 0) {
          have = 0;
          continue;
        }
        skipping = false;
        start = nl + 1;
        lastLineEnd = pos - (limit - start);
      }
      const lastNl = view.lastIndexOf(0x0a, limit - 1);
      if (lastNl >= start) {
        if (marker) {
          let from = start;
          for (;;) {
            const m = indexOfMarker(view, marker, from);
            if (m < 0 || m > lastNl) break;
            const lineStart = Math.max(start, view.lastIndexOf(0x0a, m) + 1);
            const lineEnd = view.indexOf(0x0a, m);
            onLine(buf, lineStart, lineEnd);
            from = lineEnd + 1;
          }
        } else {
          let s = start;
          let nl = view.indexOf(0x0a, s);
          while (nl >= 0) {
            if (nl > s) onLine(buf, s, nl);
            s = nl + 1;
            nl = view.indexOf(0x0a, s);
          }
        }
        start = lastNl + 1;
        lastLineEnd = pos - (limit - start);
      }
      have = limit - start;
      if (have > maxLine) {
        skipping = true;
        skipped++;
        have = 0;
      } else if (start > 0 && have > 0) buf.copy(buf, 0, start, limit);
    }
    // A last line without a newline is complete only at end of file; a capped read leaves it for next time.
    if (have > 0 && !skipping && bytesRead < maxBytes) {
      if (!marker || indexOfMarker(buf.subarray(0, have), marker, 0) >= 0) onLine(buf, 0, have);
      lastLineEnd = pos;
    }
    return { bytesRead, endOffset: lastLineEnd, truncated: bytesRead >= maxBytes, skippedLongLines: skipped };
  } finally {
    giveBack(buf);
    closeSync(fd);
  }
}
