/**
 * Keeps the spend summary (spend-summary.ts) current: every completion is counted when it is spooled, so a dispatch
 * that starts after a child finished sees that child's cost, long before the spool reaches the ledger (Claude Code's
 * command hooks drain only at session end). Every observer pass then rebuilds the summary from the ledger, which is
 * authoritative (a newer catalog, a late flush, a scan), keeping the spooled completions the ledger does not hold yet.
 *
 * Read-modify-write happens under a lock file (O_EXCL; a holder dead for LOCK_STALE_MS is taken over), so two children
 * finishing at once both count. Nothing here throws to its caller: a summary that cannot be updated is one diagnostic,
 * the completion is still spooled, and the next observer pass writes the summary again from the ledger.
 */
import { lstatSync } from 'node:fs';
import type { CompletionObservation } from '../contracts/observation.js';
import type { SpoolRecord } from '../contracts/spool.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { createExclusive, moveFile, removeFile, writeFileAtomic } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { loadPricer } from './default-pricer.js';
import type { SqlDriver } from './ledger/driver.js';
import type { Pricer } from './pricing.js';
import {
  countCompletion,
  emptySpend,
  MAX_RECENT,
  MAX_SESSIONS,
  periodsAt,
  rollTo,
  sessionKey,
  spendPath,
  trim,
  type SpendFile,
} from './spend-summary.js';
import { spendEntry } from './spend-entry.js';
import { readSpendFile } from './spend-read.js';
import { appendSpool } from './spool.js';

/** A holder older than this died (an update takes milliseconds): its lock is taken over. */
export const LOCK_STALE_MS = 5_000;
/** How long a writer waits for the lock before giving the update up (diagnosed; the next pass rebuilds). */
export const LOCK_WAIT_MS = 1_000;

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * How old the lock is, by its mtime (not its content: a holder's pid and time are written just after the O_EXCL create,
 * and a contender reading in between would find it empty). null: gone meanwhile. A link or anything but a regular file
 * there is no lock of ours: stale (moved aside, never followed).
 */
function lockAge(lock: string, now: number): number | null {
  const st = lstatSync(lock, { throwIfNoEntry: false });
  if (!st) return null;
  return st.isFile() ? now - st.mtimeMs : Infinity;
}

function withLock<T>(env: Env, fn: () => T): T {
  const lock = `${spendPath(env)}.lock`;
  const until = Date.now() + LOCK_WAIT_MS;
  for (let n = 0; ; n++) {
    const now = Date.now();
    if (createExclusive(lock, `${process.pid} ${now}\n`)) break;
    const age = lockAge(lock, now);
    if (age !== null && !(age < LOCK_STALE_MS && age > -LOCK_STALE_MS)) {
      // Taken over by a rename, so of two takers only one removes it (the other's rename finds nothing).
      const aside = `${lock}.stale-${process.pid}-${n}`;
      try {
        moveFile(lock, aside);
        removeFile(aside);
      } catch {
        /* another writer took it over first */
      }
      continue;
    }
    if (now > until) throw new Error(`spend summary lock held for more than ${LOCK_WAIT_MS} ms`);
    sleep(5);
  }
  try {
    return fn();
  } finally {
    removeFile(lock);
  }
}

/** The summary as it stands (a malformed one is replaced: the ledger pass restores what it held), changed by `fn`. */
export function updateSpend(env: Env, now: number, fn: (f: SpendFile) => SpendFile): SpendFile {
  return withLock(env, () => {
    const read = readSpendFile(env);
    if (read.error) diagnose('warn', 'observer:spend', `${read.error}; started again`, {}, env);
    const next = fn(read.file ?? emptySpend(now, env.TZ ?? null));
    writeFileAtomic(spendPath(env), JSON.stringify(next));
    return next;
  });
}

/**
 * Counts one completion in the summary, priced now. A completion with neither a child id nor a call id has no key to
 * be counted once by: it waits for the ledger pass. Never throws.
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
    updateSpend(env, now, (f) => countCompletion(f, entry, now));
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

/** appendSpool for any record, and for a completion its count in the spend summary: what every completion path calls. */
export function spoolRecord(record: SpoolRecord, env: Env, opts: { pricer?: Pricer; cwd?: string | null } = {}): void {
  appendSpool(record, env);
  if (record.type === 'completion') noteSpend(record.observation, env, opts);
}

type Sum = { pico: string; unknown: number };
type SessionRow = Sum & { harness: string; session_id: string; last: number };
type RecentRow = { k: string; harness: string; session_id: string | null; at: number; pico: string | null };

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
  const recent = db
    .prepare(
      `SELECT dedupe_key AS k, harness, session_id, ended_at AS at, CAST(cost_pico AS TEXT) AS pico
     FROM completions ORDER BY ended_at DESC LIMIT ?`,
    )
    .all<RecentRow>(MAX_RECENT);
  return trim({
    ...emptySpend(now, zone),
    day: { ...p.day, pico: day.pico, unknown: Number(day.unknown) },
    month: { ...p.month, pico: month.pico, unknown: Number(month.unknown) },
    sessions: Object.fromEntries(
      sessions.map((s) => [
        sessionKey(s.harness, s.session_id),
        { pico: s.pico, unknown: Number(s.unknown), last: s.last },
      ]),
    ),
    recent: recent.map((r) => ({
      k: r.k,
      s: r.session_id ? sessionKey(r.harness, r.session_id) : null,
      at: r.at,
      pico: r.pico,
    })),
  });
}

/**
 * Rebuilds the summary from the ledger (after an observer pass), adding back the completions counted at spool time
 * that the ledger does not hold yet (spooled after the drain claimed its files). Never throws.
 */
export function rebuildSpend(db: SqlDriver, env: Env, now = Date.now()): void {
  try {
    const known = db.prepare('SELECT 1 AS x FROM completions WHERE dedupe_key = ?');
    updateSpend(env, now, (old) => {
      let next = spendFromLedger(db, now, old.zone ?? env.TZ ?? null);
      for (const e of old.recent) if (!known.get(e.k)) next = countCompletion(next, e, now);
      return rollTo(next, now);
    });
  } catch (err) {
    diagnose('warn', 'observer:spend', `spend summary not rebuilt from the ledger: ${errorText(err)}`, {}, env);
  }
}
