/** The dispatch path's read of the spend summary (spend-summary.ts) and its journal (spend-journal.ts), in Node. */
import { lstatSync } from 'node:fs';
import type { Harness } from '../contracts/harness.js';
import { paths, type Env, joinPath } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';
import type { SpendState } from '../routing-engine/budget.js';
import { readDigest } from './spend-digest.js';
import {
  HELD_MAX_BYTES,
  mustFold,
  NO_HELD,
  parseHeld,
  SPEND_HELD_FILE,
  withHeld,
  type HeldRead,
} from './spend-held.js';
import { readJournal, type JournalRead } from './spend-journal.js';
import {
  emptySpend,
  foldJournal,
  parseSpend,
  SPEND_MAX_BYTES,
  spendPath,
  spendStateFrom,
  type ReadSpend,
} from './spend-summary.js';

/**
 * Why a summary that is absent while the ledger exists is not $0: it was deleted (or never rebuilt), and the ledger
 * holds what it had. Until the next non-dispatch path rebuilds it (spend-record.ts), the budgets cannot prove the spend.
 */
export const MISSING_WITH_LEDGER =
  'spend summary missing while the ledger exists (rebuilt from the ledger at the next completion or CLI run)';

/**
 * What a summary read gave, with the text it parsed (`text`), so a later read of the same bytes takes `file` as it is.
 * The parsed file is never changed by its readers (every update copies: spend-summary.ts).
 */
export type SummaryRead = ReadSpend & { absent: boolean; text?: string };

/**
 * A dispatch's read: `session`, its session's key (null: none). Its summary may then be read as a view (spend-digest.ts:
 * the digest at the summary's head, this session alone, no completions), never written back.
 */
export type ViewFor = { session: string | null };

/**
 * The summary file alone: absent (null, no error), parsed, or why not. `prev`: an earlier read; when the file holds the
 * very bytes it parsed, its file is taken without parsing again (content, not mtime: mtime is jiffy-coarse and inodes
 * are reused, so a rewrite within a tick would pass for the same file).
 */
export function readSummaryOnly(
  env: Env,
  prev: SummaryRead | null = null,
  view: ViewFor | null = null,
  now = Date.now(),
): SummaryRead {
  let text: string | null;
  try {
    text = readInDataDir(spendPath(env), SPEND_MAX_BYTES);
  } catch (err) {
    return { file: null, error: `spend summary unreadable: ${(err as Error).message}`, absent: false };
  }
  if (text === null) return { file: null, error: null, absent: true };
  // A whole summary parsed before serves a view as well; a view never serves a reader of the whole.
  if (prev?.file && prev.text === text && (view !== null || !prev.file.basis))
    return { file: prev.file, error: null, absent: false, text };
  const digest = view !== null ? readDigest(text, view.session, now) : null;
  if (digest !== null) return { file: digest, error: null, absent: false, text };
  const parsed = parseSpend(text);
  return typeof parsed === 'string'
    ? { file: null, error: parsed, absent: false }
    : { file: parsed, error: null, absent: false, text };
}

export const heldPath = (env: Env): string => joinPath(paths(env).data, SPEND_HELD_FILE);

/**
 * The held reservation lines (spend-held.ts), never through a link; absent: none. `prev`: an earlier read, taken as it is
 * when the file holds the very same bytes. Throws what the read throws (unreadable, over HELD_MAX_BYTES, not a file).
 */
export function readHeld(env: Env, prev: HeldRead | null = null): HeldRead {
  const text = readInDataDir(heldPath(env), HELD_MAX_BYTES);
  if (text === null) return NO_HELD;
  return prev !== null && prev.text === text ? prev : parseHeld(text);
}

/** A file of the data dir, never through a link: its text, or null when it (or the dir) is absent; throws otherwise. */
function readInDataDir(path: string, maxBytes: number): string | null {
  try {
    return readTextCapped(path, maxBytes, { follow: false });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/** Whether the ledger is there (one lstat, only when the summary is not). */
export const ledgerExists = (env: Env): boolean => !!lstatSync(paths(env).ledger, { throwIfNoEntry: false });

/**
 * The spend as the journal and the summary give it: the journal is listed first, then the summary read, and the
 * journal's entries folded in (each once, by key), so a completion merged in between still counts. Absent with no
 * ledger: nothing recorded yet (a true $0, plus what is journaled). Absent while the ledger exists, or any other
 * failure: an error for the caller to diagnose (budgets fail open, never silently $0). `prev`: an earlier read, whose
 * parsed summary is taken again when the file's bytes are the same (readSummaryOnly); the journal is read anew.
 */
export function readSpendWith(
  env: Env,
  now: number,
  prev: SpendRead | null = null,
  view: ViewFor | null = null,
): SpendRead {
  const journal = readJournal(env);
  // Before the summary: a fold in between leaves lines of an older generation, which the summary read after holds.
  let held = NO_HELD;
  let heldError: string | null = null;
  try {
    held = readHeld(env, prev?.held ?? null);
  } catch (err) {
    heldError = `held reservations unreadable: ${(err as Error).message}`;
  }
  // A journal to fold, or held lines due to be folded: the whole summary, which the fold rewrites (spend-reserve.ts).
  const viewed = view !== null && journal.names.length === 0 && !mustFold(held) ? view : null;
  const summary = readSummaryOnly(env, prev?.summary ?? null, viewed, now);
  const error = summary.error ?? journal.error ?? heldError;
  if (error !== null) return { file: null, error, journal, held, absent: summary.absent, summary };
  if (summary.absent && ledgerExists(env))
    return { file: null, error: MISSING_WITH_LEDGER, journal, held, absent: true, summary };
  const base = summary.file ?? (journal.entries.length || held.lines.length ? emptySpend(now, env.TZ ?? null) : null);
  // The held reservations first: a journaled completion settles its own dispatch's reservation wherever it is held.
  const reserved = base && held.lines.length ? withHeld(base, held.lines) : base;
  const file = reserved && journal.entries.length ? foldJournal(reserved, journal.entries, now) : reserved;
  return { file, error: null, journal, held, absent: summary.absent, summary };
}

/** The spend with how it was read: the journal, the held lines and the summary alone (for a later read to compare with). */
export type SpendRead = ReadSpend & { journal: JournalRead; held: HeldRead; absent: boolean; summary: SummaryRead };

/** The spend as a reader gets it: the whole summary, or with `view` a session's view of it (readSpendWith). */
export function readSpendFile(env: Env, now = Date.now(), view: ViewFor | null = null): ReadSpend {
  const { file, error } = readSpendWith(env, now, null, view);
  return { file, error };
}

export function readSpend(
  env: Env,
  harness: Harness,
  sessionId: string | null,
  now: number,
  sessionTotal: string | null = null,
): SpendState {
  return spendStateFrom(readSpendFile(env, now), harness, sessionId, now, sessionTotal);
}
