/**
 * Keeps the spend summary (spend-summary.ts) current: every completion is counted when it is spooled, so a dispatch
 * that starts after a child finished sees that child's cost, long before the spool reaches the ledger (Claude Code's
 * command hooks drain only at session end). Every observer pass then rebuilds the summary from the ledger, which is
 * authoritative (a newer catalog, a late flush, a scan), keeping the spooled completions the ledger does not hold yet.
 *
 * A completion is journaled first, without the lock (spend-journal.ts: one atomic file per completion, so none is ever
 * lost to a busy lock), then merged into the summary under the lock if it can be had at once; whoever holds the lock
 * next merges what is left (another completion, a dispatch reserving its cost, the ledger rebuild). A summary missing
 * while the ledger exists is rebuilt from the ledger here, never restarted at $0. Nothing here throws to its caller.
 */
import type { CompletionObservation } from '../contracts/observation.js';
import type { SpoolRecord } from '../contracts/spool.js';
import { loadPolicy } from '../config/load.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { hasBudget } from '../routing-engine/budget.js';
import { loadPricer } from './default-pricer.js';
import type { SqlDriver } from './ledger/driver.js';
import { openLedger } from './ledger/open.js';
import { ledgerText } from './ledger/text.js';
import type { Pricer } from './pricing.js';
import {
  countCompletion,
  emptySpend,
  foldJournal,
  liveReservations,
  MAX_RECENT,
  MAX_SESSIONS,
  periodsAt,
  rollTo,
  sessionKey,
  trim,
  type RecentEntry,
  type SessionSpend,
  type SpendFile,
} from './spend-summary.js';
import { spendEntry } from './spend-entry.js';
import { writeFold } from './spend-fold.js';
import { journalCompletion, readJournal } from './spend-journal.js';
import { LOCK_STALE_MS, tryWithSpendLock, withSpendLock } from './spend-lock.js';
import { heldGen, NO_HELD, withHeld } from './spend-held.js';
import { ledgerExists, readHeld, readSummaryOnly } from './spend-read.js';
import { appendSpool } from './spool.js';

export { LOCK_STALE_MS };
/** How long an update that must happen (the ledger rebuild, a completion whose journal could not be written) waits. */
export const LOCK_WAIT_MS = 1_000;
/**
 * How long a journaled completion waits to merge itself: not at all to speak of, since it already counts and the next
 * lock holder merges it.
 */
export const MERGE_WAIT_MS = 20;
/** How long a completion path may wait on SQLite to rebuild a missing summary. */
const REBUILD_BUSY_MS = 500;

/**
 * Under the lock: the summary with the journal merged in, changed by `fn`, written; the journal entries merged are
 * removed. A malformed summary is replaced (the ledger pass restores what it held); a missing one while the ledger
 * exists is rebuilt from the ledger first. `db`: the ledger, if the caller has it open.
 */
function mergeLocked(env: Env, now: number, fn: (f: SpendFile) => SpendFile, db?: SqlDriver): SpendFile {
  const journal = readJournal(env, true);
  if (journal.error) diagnose('warn', 'observer:spend', journal.error, {}, env);
  // The dispatches' held reservations (spend-held.ts), taken in here so a completion settles its own.
  let held = NO_HELD;
  try {
    held = readHeld(env);
  } catch (err) {
    diagnose('warn', 'observer:spend', `held reservations not taken in: ${errorText(err)}`, {}, env);
  }
  const read = readSummaryOnly(env);
  let base: SpendFile;
  let entries: RecentEntry[] = journal.entries;
  if (read.absent && (db || ledgerExists(env))) {
    const own = db ? null : openLedger(env, { busyTimeoutMs: REBUILD_BUSY_MS });
    try {
      const ledger = (db ?? own)!;
      base = spendFromLedger(ledger, now, env.TZ ?? null);
      const known = ledger.prepare('SELECT 1 AS x FROM completions WHERE dedupe_key = ?');
      // The ledger stores its keys cleaned (ledger/text.ts): a key with a NUL must be looked up cleaned, or counted twice.
      entries = entries.filter((e) => !known.get(ledgerText(e.k)));
    } finally {
      own?.close();
    }
    if (!db) diagnose('info', 'observer:spend', 'spend summary was missing: rebuilt from the ledger', {}, env);
  } else {
    if (read.error) diagnose('warn', 'observer:spend', `${read.error}; started again`, {}, env);
    base = read.file ?? emptySpend(now, env.TZ ?? null);
  }
  // A summary rebuilt (missing, malformed) takes the newest generation's lines: the reservations its lost copy had not.
  const gen = read.file ? heldGen(read.file) : held.lines.reduce((g, l) => Math.max(g, l.g), 0);
  const next = fn(foldJournal(withHeld({ ...base, heldGen: gen }, held.lines), entries, now));
  return writeFold(env, next, read.file, held, journal.names);
}

/** The summary as it stands, merged and changed by `fn`, under the lock (throws when it cannot be had in `waitMs`). */
export function updateSpend(env: Env, now: number, fn: (f: SpendFile) => SpendFile, waitMs = LOCK_WAIT_MS): SpendFile {
  return withSpendLock(env, waitMs, () => mergeLocked(env, now, fn));
}

/** Merges the journal into the summary if the lock is free now; false when it was not (the journal still counts). */
export function mergeSpend(env: Env, now = Date.now(), waitMs = MERGE_WAIT_MS): boolean {
  return tryWithSpendLock(env, waitMs, () => mergeLocked(env, now, (f) => f)).held;
}

/**
 * Counts one completion in the budgets, priced now: journaled at once, merged when the lock is free. A completion with
 * neither a child id nor a call id has no key to be counted once by: it waits for the ledger pass. A child whose spend
 * could not be read counts as unknown (never $0) and, under a budget, says so. Never throws.
 */
export function noteSpend(
  obs: CompletionObservation,
  env: Env,
  opts: { pricer?: Pricer; cwd?: string | null; now?: number } = {},
): void {
  try {
    const entry = spendEntry(obs, opts.pricer ?? loadPricer(env, opts.cwd ?? null));
    if (!entry) return;
    const now = opts.now ?? Date.now();
    if (entry.pico === null) noteUnknown(obs, env, opts.cwd ?? null);
    try {
      journalCompletion(env, entry, now);
    } catch (err) {
      // No journal (a full disk, a refused spend.d): counted under the lock instead, waiting for it.
      diagnose('warn', 'observer:spend', `spend journal not written: ${errorText(err)}`, { callId: obs.callId }, env);
      updateSpend(env, now, (f) => countCompletion(f, entry, now));
      return;
    }
    try {
      mergeSpend(env, now);
    } catch (err) {
      // Journaled, so it counts already; the next lock holder merges it.
      diagnose(
        'warn',
        'observer:spend',
        `spend journal not merged yet: ${errorText(err)}`,
        { callId: obs.callId },
        env,
      );
    }
  } catch (err) {
    diagnose(
      'warn',
      'observer:spend',
      `completion not counted in the spend summary yet: ${errorText(err)}`,
      { callId: obs.callId },
      env,
    );
  }
}

/** Under a budget, a child counted as unknown is diagnosed: its cost is missing from the figure, not $0. */
function noteUnknown(obs: CompletionObservation, env: Env, cwd: string | null): void {
  if (!hasBudget(loadPolicy(env, cwd).policy.budgets)) return;
  const why = obs.usage ? `no price for ${obs.servedModel ?? 'its model'}` : 'no usage found in its transcript (tail)';
  diagnose(
    'warn',
    'observer:spend',
    `a child's spend could not be read (${why}): counted as unknown against the budgets, never as $0`,
    { callId: obs.callId, agentId: obs.agentId, sessionId: obs.sessionId },
    env,
  );
}

/** appendSpool for any record, and for a completion its count in the spend summary: what every completion path calls. */
export function spoolRecord(record: SpoolRecord, env: Env, opts: { pricer?: Pricer; cwd?: string | null } = {}): void {
  appendSpool(record, env);
  if (record.type === 'completion') noteSpend(record.observation, env, opts);
}

type Sum = { pico: string; unknown: number };
type SessionRow = Sum & { harness: string; session_id: string; last: number };
type RecentRow = {
  k: string;
  harness: string;
  session_id: string | null;
  at: number;
  pico: string | null;
  c: string | null;
  m: string | null;
  a: string | null;
};

/** Sessions older than this are not looked for (the query stays on the ended_at index). */
const SESSION_WINDOW_MS = 90 * 24 * 3600 * 1000;

/** The summary from the ledger alone, at `now`. */
export function spendFromLedger(db: SqlDriver, now: number, zone: string | null): SpendFile {
  const p = periodsAt(now);
  const period = db.prepare(
    `SELECT CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS pico, COUNT(*) - COUNT(cost_pico) AS unknown
     FROM completions WHERE ended_at >= ? AND ended_at < ?`,
  );
  const day = period.get<Sum>(p.day.start, p.day.end)!;
  const month = period.get<Sum>(p.month.start, p.month.end)!;
  const since = now - SESSION_WINDOW_MS;
  const sessions = db
    .prepare(
      `SELECT harness, session_id, CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS pico, COUNT(*) - COUNT(cost_pico) AS unknown,
       MAX(ended_at) AS last
     FROM completions WHERE ended_at >= ? AND session_id IS NOT NULL
     GROUP BY harness, session_id ORDER BY last DESC LIMIT ?`,
    )
    .all<SessionRow>(since, MAX_SESSIONS);
  // For `tiergate statusline` (report/statusline.ts), which opens no SQLite: corrections from their partial index.
  const corrected = new Map(
    db
      .prepare(
        `SELECT harness, session_id, COUNT(*) AS n, MAX(at) AS last FROM dispatches
       WHERE action = 'correct' AND at >= ? AND session_id IS NOT NULL GROUP BY harness, session_id`,
      )
      .all<{ harness: string; session_id: string; n: number; last: number }>(since)
      .map((r) => [sessionKey(r.harness, r.session_id), r]),
  );
  const recent = db
    .prepare(
      `SELECT dedupe_key AS k, harness, session_id, ended_at AS at, CAST(cost_pico AS TEXT) AS pico, call_id AS c,
       served_model AS m, subagent_type AS a
     FROM completions ORDER BY ended_at DESC LIMIT ?`,
    )
    .all<RecentRow>(MAX_RECENT);
  return trim({
    ...emptySpend(now, zone),
    day: { ...p.day, pico: day.pico, unknown: Number(day.unknown) },
    month: { ...p.month, pico: month.pico, unknown: Number(month.unknown) },
    sessions: Object.fromEntries([
      ...sessions.map((s): [string, SessionSpend] => {
        const key = sessionKey(s.harness, s.session_id);
        const n = corrected.get(key)?.n;
        return [key, { pico: s.pico, unknown: Number(s.unknown), last: s.last, ...(n ? { corrected: n } : {}) }];
      }),
      // A session whose corrected children have not finished yet: no spend, its corrections all the same. Only
      // into room left: one must never push a session with spend out of the summary (its budget would restart).
      ...[...corrected]
        .filter(([key]) => !sessions.some((s) => sessionKey(s.harness, s.session_id) === key))
        .sort((a, b) => b[1].last - a[1].last)
        .slice(0, MAX_SESSIONS - sessions.length)
        .map(([key, r]): [string, SessionSpend] => [key, { pico: '0', unknown: 0, last: r.last, corrected: r.n }]),
    ]),
    recent: recent.map((r) => ({
      k: r.k,
      s: r.session_id ? sessionKey(r.harness, r.session_id) : null,
      at: r.at,
      pico: r.pico,
      c: r.c,
      m: r.m,
      a: r.a,
    })),
  });
}

/**
 * Rebuilds the summary from the ledger (after an observer pass), adding back the completions counted at spool time
 * that the ledger does not hold yet (spooled after the drain claimed its files), the journal, and the reservations
 * still held. Never throws.
 */
export function rebuildSpend(db: SqlDriver, env: Env, now = Date.now()): void {
  try {
    const known = db.prepare('SELECT 1 AS x FROM completions WHERE dedupe_key = ?');
    withSpendLock(env, LOCK_WAIT_MS, () =>
      mergeLocked(
        env,
        now,
        (old) => {
          let next = spendFromLedger(db, now, old.zone ?? env.TZ ?? null);
          // Counted before, so their reservations are settled already: back in before the reservations are.
          for (const e of old.recent) if (!known.get(e.k)) next = countCompletion(next, e, now);
          // A child the ledger holds by its dispatch's call id has finished, though no completion hook counted it
          // (a harness whose completions reach only the spool): its reservation is settled here.
          const done = db.prepare('SELECT 1 AS x FROM completions WHERE harness = ? AND call_id = ? LIMIT 1');
          next.reserved = liveReservations(old, now).filter((r) => !(r.c && r.h && done.get(r.h, r.c)));
          // Counted at dispatch only (fan-out limits): the ledger has no such figure.
          if (old.started) next.started = old.started;
          return trim(rollTo(next, now), now);
        },
        db,
      ),
    );
  } catch (err) {
    diagnose('warn', 'observer:spend', `spend summary not rebuilt from the ledger: ${errorText(err)}`, {}, env);
  }
}
