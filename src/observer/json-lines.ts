/**
 * JSON-lines files (spools, transcripts, rollouts) read the one way: bounded (tail.ts), each complete line parsed on
 * its own, and a line that is not JSON (a record torn mid-write, foreign garbage) handed on as undefined, never thrown.
 * A `keep` test sees the raw line first; a line it refuses is never parsed (a byte test keeps a scan of gigabytes cheap).
 */
import {
  readLinesForward,
  readTailLines,
  type ForwardOptions,
  type ForwardResult,
  type TailOptions,
  type TailResult,
} from './tail.js';

/**
 * A `keep` test: the raw line holds one of the markers (each a JSON fragment such as `"type":"session_meta"`). The lines
 * a parser reads are a few kinds among many large ones (instructions, tool catalogs, system messages): the rest are
 * skipped unparsed.
 */
export function linesWith(...markers: readonly string[]): (line: Buffer) => boolean {
  const bytes = markers.map((m) => Buffer.from(m));
  return (line) => bytes.some((b) => line.indexOf(b) >= 0);
}

/** One line's JSON value; undefined when the line is not JSON. */
export function parseJsonLine(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Every line from the start (or `startOffset`), parsed, in file order. */
export function readJsonLines(
  path: string,
  opts: ForwardOptions & { keep?: (line: Buffer) => boolean },
  onValue: (value: unknown, text: string) => void,
): ForwardResult {
  const keep = opts.keep;
  return readLinesForward(path, opts, (buf, start, end) => {
    if (keep && !keep(buf.subarray(start, end))) return;
    const text = buf.toString('utf8', start, end);
    onValue(parseJsonLine(text), text);
  });
}

/** Lines from the end, newest first, parsed, until `stopWhen` says enough (or the byte cap is spent). */
export function readJsonTail(
  path: string,
  opts: Omit<TailOptions, 'stopWhen'> & { keep?: (text: string) => boolean },
  stopWhen: (value: unknown, text: string) => boolean,
): TailResult {
  const keep = opts.keep;
  return readTailLines(path, {
    ...opts,
    stopWhen: (text) => (keep && !keep(text) ? false : stopWhen(parseJsonLine(text), text)),
  });
}
