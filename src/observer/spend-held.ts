/**
 * The reservations dispatches made since the spend summary last took them in: one line each, appended (O_APPEND) under
 * the spend lock to `<data dir>/spend-held.jsonl`, where a dispatch used to rewrite the whole summary (a temp file and a
 * rename, whose flush was kernel time on every dispatch under a budget: bench/README.md, "Session 15").
 *
 * Generations make the file safe to cut without the readers' lock: the summary says which generation of lines it has
 * not taken in yet (`heldGen`), and each line carries the generation it was appended under (`g`). A fold (under the
 * lock: a merge, a rebuild, every FOLD_EVERY-th dispatch, or a journal or a cut line found) writes the summary with the
 * lines taken in and `heldGen` one higher, and only then empties this file. A reader reads this file first, then the
 * summary, and counts only the lines of the summary's generation: a fold between its two reads leaves it lines of an
 * older generation, which the summary it then reads already holds; a fold that wrote the summary but could not empty the
 * file leaves lines no reader counts again.
 *
 * Pure (no file access): the Node reader (spend-read.ts) and Claude Code's hooks module (through `$.fs`) both use it.
 */
import { isReservation, MAX_RESERVED, type Reservation, type SpendFile } from './spend-summary.js';

export const SPEND_HELD_FILE = 'spend-held.jsonl';
/** A dispatch takes the lines in after this many (a fold rewrites the summary once for them all). */
export const FOLD_EVERY = 32;
/**
 * Far above FOLD_EVERY lines of ~200 bytes: this many bytes means folds have been failing for thousands of dispatches
 * (a summary that cannot be written), or the file is not ours; readers then report it (budgets fail open, diagnosed).
 */
export const HELD_MAX_BYTES = 256 * 1024;

/** A reservation as held: `g`, the summary generation it was appended under; `st`, a child counted as started too. */
export type HeldLine = Reservation & { g: number; st?: 1 };

/**
 * The file's lines: `lines` every well-formed one (of any generation), `count` how many lines the file holds, `cut`
 * whether one is torn or foreign (no newline at its end, not a reservation): a fold then empties the file, so no line
 * is ever appended onto a torn one. `text`: what was read (a later read of the same bytes is the same held set).
 */
export type HeldRead = { lines: HeldLine[]; count: number; cut: boolean; text: string };

export const NO_HELD: HeldRead = { lines: [], count: 0, cut: false, text: '' };

const isHeldLine = (v: unknown): v is HeldLine => {
  if (!isReservation(v)) return false;
  const r = v as HeldLine;
  return (
    Number.isSafeInteger(r.g) &&
    r.g >= 0 &&
    (r.c === null || typeof r.c === 'string') &&
    (r.s === null || typeof r.s === 'string')
  );
};

export function parseHeld(text: string): HeldRead {
  if (text.length === 0) return NO_HELD;
  const lines: HeldLine[] = [];
  let count = 0;
  let cut = false;
  for (let from = 0; from < text.length; ) {
    const nl = text.indexOf('\n', from);
    count++;
    if (nl < 0) {
      cut = true; // torn: its writer died mid-line (or is still writing, seen without the lock)
      break;
    }
    try {
      const v: unknown = JSON.parse(text.slice(from, nl));
      if (isHeldLine(v)) lines.push(v);
      else cut = true;
    } catch {
      cut = true;
    }
    from = nl + 1;
  }
  return { lines, count, cut, text };
}

/** One reservation's line, under generation `g`; `started`: the child counts as started for the fan-out limits. */
export function heldLineText(r: Reservation, g: number, started: boolean): string {
  const line: HeldLine = started ? { ...r, g, st: 1 } : { ...r, g };
  return `${JSON.stringify(line)}\n`;
}

/** The generation of lines `f` has not taken in yet (0 for a summary written before held lines, or none). */
export const heldGen = (f: SpendFile | null): number => f?.heldGen ?? 0;

/**
 * `f` with the held lines of its own generation counted: their reservations among its own (newest last), each `st` one
 * more child started in its session. `f` is left as it is (a copy of what changes). No lines of its generation: `f`.
 */
export function withHeld(f: SpendFile, held: HeldLine[]): SpendFile {
  const g = heldGen(f);
  const mine = held.filter((l) => l.g === g);
  if (mine.length === 0) return f;
  const reserved = [...(f.reserved ?? [])];
  let started = f.started;
  for (const l of mine) {
    const { g: _g, st, ...r } = l;
    reserved.push(r);
    if (st && r.s) {
      started = started === f.started ? { ...f.started } : started;
      const was = started![r.s];
      started![r.s] = { n: (was?.n ?? 0) + 1, last: Math.max(was?.last ?? 0, r.at) };
    }
  }
  return { ...f, reserved: reserved.slice(-MAX_RESERVED), ...(started ? { started } : {}) };
}

/**
 * Whether a dispatch takes the lines in (rewriting the summary once) instead of appending one more: every
 * FOLD_EVERY-th, or when a line is torn or foreign (nothing is appended onto it).
 */
export const mustFold = (held: HeldRead): boolean => held.cut || held.count + 1 >= FOLD_EVERY;

/** The generation a fold writes: past every line in the file, so none is counted again if the file cannot be emptied. */
export function nextGen(f: SpendFile | null, held: HeldRead): number {
  let g = heldGen(f);
  for (const l of held.lines) if (l.g > g) g = l.g;
  return g + 1;
}
