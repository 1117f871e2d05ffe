/**
 * What a running child has spent so far, read incrementally from its transcript (issue 33): an offset per file is kept
 * in the data dir, and each check reads only the bytes appended since, bounded by size and deadline. A tool call in a
 * child therefore costs O(new bytes), never a whole-file re-read (bench/child-spend.bench.mjs).
 *
 * Only whole lines are counted: the offset stops after the last newline read, so a line the harness is still writing
 * is read whole next time. A line longer than the window is skipped (its fragments do not parse). A file replaced or
 * truncated (another inode, or shorter than the offset) is counted again from its start.
 *
 * The offset file is a cache, overwritten in place (a rename per tool call cost ~1 ms here); one torn or damaged is
 * ignored and the transcript counted again from its start (bounded per check like any read).
 *
 * The harness's line format is the caller's (`LineCost`): this module knows bytes, offsets and sums.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ensurePrivateDir, overwriteCache } from '../io/files.js';
import { paths, type Env, joinPath } from '../io/paths.js';
import { READ_FLAGS, readTextCapped } from '../io/read-capped.js';

/**
 * One line's cost: `key` groups lines of one response (the largest cost per key counts); `pico` null is unpriced;
 * `calls` the tool call ids the line holds (so a check can wait for the line of the call it is checking).
 */
export type LineCost = (line: string) => { key: string | null; pico: bigint | null; calls?: string[] } | null;

export type ChildSpend = {
  pico: bigint;
  unknown: number;
  read: number;
  skipped: number;
  complete: boolean;
  /** Tool call ids seen lately (newest last). */
  calls: string[];
};

export type ChildSpendLimits = { maxBytes: number; deadline: number; now?: () => number };

/** The folder of offset files, one per transcript (named by a hash of its path). */
export const CHILD_SPEND_DIR = 'child-spend';
const FORMAT = 'tiergate-child-spend/1';
const STATE_MAX_BYTES = 64 * 1024;
const CHUNK = 1024 * 1024;
/** Response keys remembered so a snapshot line of one response repeated later is not counted twice. */
const MAX_KEYS = 64;
/** Bytes of the file's start kept to tell a rewritten file from the one counted. */
const HEAD_BYTES = 64;

type State = {
  format: typeof FORMAT;
  path: string;
  dev: number;
  ino: number;
  offset: number;
  /** The file's first bytes (hex) when counted: another file truncated and rewritten under the same inode differs. */
  head: string;
  pico: string;
  unknown: number;
  /** Recent response keys and the cost counted for each (largest so far), newest last. */
  keys: Array<[string, string | null]>;
  calls: string[];
};

const fresh = (path: string, dev: number, ino: number): State => ({
  format: FORMAT,
  path,
  dev,
  ino,
  offset: 0,
  head: '',
  pico: '0',
  unknown: 0,
  keys: [],
  calls: [],
});

/**
 * FNV-1a, twice (two offsets): a file name per transcript path without loading node:crypto into a command hook (its
 * load costs a cold process milliseconds). A collision costs a recount only: the offset file names its path.
 */
function pathName(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/**
 * The marker that a child was recorded as stopped (runtime/child-stop.ts): created exclusively, once per child, so a
 * child denied at each of its later tool calls is spooled once, at the cost of one failed open per call.
 */
export function childStoppedMarkerPath(env: Env, harness: string, childId: string): string {
  return joinPath(paths(env).data, CHILD_SPEND_DIR, `${pathName(`${harness}:${childId}`)}.stopped`);
}

export function childSpendStatePath(env: Env, transcript: string): string {
  const name = pathName(transcript);
  return joinPath(paths(env).data, CHILD_SPEND_DIR, `${name}.json`);
}

function readState(file: string, transcript: string, dev: number, ino: number): State {
  let text: string;
  try {
    text = readTextCapped(file, STATE_MAX_BYTES, { follow: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fresh(transcript, dev, ino);
    throw err;
  }
  let s: State;
  try {
    s = JSON.parse(text) as State;
  } catch {
    // Torn by a writer in place (overwriteCache) or damaged: counted again from the start, never trusted.
    return fresh(transcript, dev, ino);
  }
  const ok =
    s?.format === FORMAT &&
    s.path === transcript &&
    Number.isSafeInteger(s.offset) &&
    s.offset >= 0 &&
    typeof s.head === 'string' &&
    /^\d+$/.test(s.pico) &&
    Number.isSafeInteger(s.unknown) &&
    Array.isArray(s.keys) &&
    Array.isArray(s.calls);
  // Another file under the same name (rotated, recreated): its bytes are new, counted from the start.
  if (!ok || s.dev !== dev || s.ino !== ino) return fresh(transcript, dev, ino);
  return s;
}

function countLine(s: State, line: string, cost: LineCost, sum: { pico: bigint; unknown: number }): void {
  const c = cost(line);
  if (!c) return;
  for (const id of c.calls ?? []) {
    s.calls.push(id);
    if (s.calls.length > MAX_KEYS) s.calls.shift();
  }
  const next = c.pico === null ? null : c.pico.toString();
  if (c.key !== null) {
    const i = s.keys.findIndex(([k]) => k === c.key);
    if (i >= 0) {
      const before = s.keys[i]![1];
      // A later snapshot of the same response: only what it adds over the largest counted so far.
      if (before === null) {
        if (next === null) return;
        sum.unknown -= 1;
        sum.pico += c.pico!;
        s.keys[i] = [c.key, next];
      } else if (next !== null && c.pico! > BigInt(before)) {
        sum.pico += c.pico! - BigInt(before);
        s.keys[i] = [c.key, next];
      }
      return;
    }
    s.keys.push([c.key, next]);
    if (s.keys.length > MAX_KEYS) s.keys.shift();
  }
  if (c.pico === null) sum.unknown += 1;
  else sum.pico += c.pico;
}

/**
 * The child's spend so far: the offset file's sum plus the whole lines appended since, then the new offset written
 * (atomically, never through a link). Throws on a fault: the caller fails open.
 */
export function readChildSpend(env: Env, transcript: string, cost: LineCost, limits: ChildSpendLimits): ChildSpend {
  const now = limits.now ?? Date.now;
  const fd = openSync(transcript, READ_FLAGS);
  let state: State;
  const sum = { pico: 0n, unknown: 0 };
  let read = 0;
  let skipped = 0;
  let complete = true;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error('transcript is not a regular file');
    const file = childSpendStatePath(env, transcript);
    state = readState(file, transcript, st.dev, st.ino);
    const head = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
    readSync(fd, head, 0, head.length, 0);
    const headHex = head.toString('hex');
    if (st.size < state.offset || !headHex.startsWith(state.head)) state = fresh(transcript, st.dev, st.ino);
    if (state.head.length < headHex.length) state.head = headHex;
    sum.pico = BigInt(state.pico);
    sum.unknown = state.unknown;
    const end = Math.min(st.size, state.offset + limits.maxBytes);
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(0, end - state.offset)));
    let pos = state.offset;
    // The unfinished line so far, as the chunks it spans (copied out of the reused buffer): joined once, at its newline.
    let carry: Buffer[] = [];
    let carryLen = 0;
    while (pos < end) {
      if (now() > limits.deadline) {
        complete = false;
        break;
      }
      const n = readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos);
      if (n === 0) break;
      pos += n;
      read += n;
      const chunk = buf.subarray(0, n);
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        const text = carryLen
          ? Buffer.concat([...carry, chunk.subarray(0, nl)]).toString('utf8')
          : chunk.toString('utf8', start, nl);
        carry = [];
        carryLen = 0;
        countLine(state, text, cost, sum);
        start = nl + 1;
      }
      if (start < n) {
        carry.push(Buffer.from(chunk.subarray(start)));
        carryLen += n - start;
      }
      state.offset = pos - carryLen;
    }
    if (pos < st.size) complete = false;
    // A window with no newline in it at all is one line longer than the window: skipped, so the file moves on.
    if (carryLen >= limits.maxBytes) {
      state.offset += carryLen;
      skipped += carryLen;
    }
    state.pico = sum.pico.toString();
    state.unknown = sum.unknown;
    ensurePrivateDir(joinPath(paths(env).data, CHILD_SPEND_DIR));
    overwriteCache(file, JSON.stringify(state));
  } finally {
    closeSync(fd);
  }
  return { pico: sum.pico, unknown: sum.unknown, read, skipped, complete, calls: state.calls };
}
