/**
 * Drains hook spools into the ledger. appendSpool (dispatch paths) only appends JSONL lines to files in
 * paths().spoolDir; this moves them into SQLite at completion, session end and on every CLI run.
 *
 * Claim by rename: a drainer renames a spool file to `<name>.draining-<pid>-<n>` before reading it, so two drainers
 * never read the same file; inserts are idempotent on unique keys anyway, so a file re-read after a crash lands once.
 * A writer still holding the old name when the rename happens appends to the claimed inode: the file is re-read from
 * where the drainer stopped just before it is removed.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { harnessList, HARNESSES } from '../adapters/index.js';
import type { Harness } from '../contracts/harness.js';
import { SpoolRecordSchema, type SpoolRecord } from '../contracts/spool.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { existingPrivateDir, moveFile, removeFile } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';
import { RefusedFile } from '../io/read-capped.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { busyWaitUntil, openLedger, setBusyTimeout } from '../observer/ledger/open.js';
import { recordDecision } from '../observer/ledger/decisions.js';
import {
  dispatchKey,
  recordCompletion,
  recordDispatch,
  reconcileCompletions,
  settleCompletion,
  type CompletionRow,
} from '../observer/ledger/store.js';
import { checkEnforcement } from '../observer/enforcement.js';
import { rebuildSpend } from '../observer/spend-record.js';
import type { Pricer } from '../observer/pricing.js';
import { readJsonLines } from '../observer/json-lines.js';
import { tidyDataDir } from '../observer/tidy.js';
import { storeParse } from './scan.js';

export const SPOOL_LINE_MAX_BYTES = 256 * 1024;
export const SPOOL_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** A claimed file left by a drainer that died is taken over after this long. */
export const STALE_CLAIM_MS = 10 * 60 * 1000;
/** Pending completions whose transcript never flushes become `unknown` after this long. */
export const PENDING_GIVE_UP_MS = 7 * 24 * 3600 * 1000;
/** How far back the observer pass settles pending children from a harness's store (older ones: `tiergate scan`). */
const STORE_SETTLE_MS = 24 * 3600 * 1000;
/** Late-flush re-reads of a child transcript are capped like any transcript read. */
export const LATE_FLUSH_MAX_BYTES = 256 * 1024 * 1024;

export type DrainStats = {
  files: number;
  lines: number;
  dispatches: number;
  completions: number;
  invalid: number;
  reconciledPending: number;
  priced: number;
};

let claimCounter = 0;

function claimable(dir: string, now: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    // appendBounded rotates a full spool file to `<name>.1`: both generations are drained.
    if (/\.jsonl(\.1)?$/.test(name)) out.push(name);
    else if (/\.jsonl(\.1)?\.draining-/.test(name)) {
      try {
        if (now - statSync(join(dir, name)).mtimeMs > STALE_CLAIM_MS) out.push(name);
      } catch {
        /* another drainer finished it meanwhile */
      }
    }
  }
  return out.sort();
}

function lineKey(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 24);
}

export function dispatchFromSpool(
  rec: Extract<SpoolRecord, { type: 'dispatch' }>,
): Parameters<typeof recordDispatch>[1] {
  const o = rec.observation;
  return {
    harness: o.harness,
    sessionId: o.sessionId,
    callId: o.callId,
    at: o.at,
    project: o.cwd,
    parentModel: o.parentModel,
    parentModelSource: o.parentModelSource,
    requestedModel: o.requestedModel,
    requestedAgent: o.requestedAgent,
    requestedTier: o.requestedTier,
    subagentType: o.subagentType,
    action: rec.decision.action,
    reason: rec.decision.reason,
    tier: rec.decision.tier,
    effectiveModel: rec.decision.effectiveModel,
    catalogVersion: rec.decision.catalogVersion,
    escalationFrom: o.escalationFrom,
    childAgentId: null,
    source: 'spool',
  };
}

export function completionFromSpool(
  rec: Extract<SpoolRecord, { type: 'completion' }>,
  fallbackKey: string,
): CompletionRow {
  const o = rec.observation;
  return {
    harness: o.harness,
    sessionId: o.sessionId,
    callId: o.callId,
    agentId: o.agentId,
    subagentType: o.subagentType,
    project: null,
    requestedModel: null,
    servedModel: o.servedModel,
    usage: o.usage,
    status: o.status,
    outcome: o.outcome,
    startedAt: o.startedAt,
    endedAt: o.endedAt,
    usageSource: o.usageSource,
    transcriptPath: rec.transcriptPath,
    incomplete: false,
    cost: null,
    fallbackKey,
    turnId: o.turnId ?? null,
    multiplier: o.multiplier ?? null,
  };
}

function ingestFile(db: SqlDriver, file: string, stats: DrainStats): void {
  let offset = 0;
  for (let pass = 0; pass < 2; pass++) {
    const batch: { rec: SpoolRecord; key: string }[] = [];
    const res = readJsonLines(
      file,
      { startOffset: offset, maxBytes: SPOOL_FILE_MAX_BYTES, maxLineBytes: SPOOL_LINE_MAX_BYTES, noFollow: true },
      (value, text) => {
        stats.lines++;
        const parsed = value === undefined ? null : SpoolRecordSchema.safeParse(value);
        if (parsed?.success) batch.push({ rec: parsed.data, key: lineKey(text) });
        else stats.invalid++;
      },
    );
    stats.invalid += res.skippedLongLines;
    db.transaction(() => {
      for (const { rec, key } of batch) {
        if (rec.type === 'dispatch') {
          if (recordDispatch(db, dispatchFromSpool(rec), key)) stats.dispatches++;
          const detail = rec.decision.detail;
          if (detail)
            recordDecision(
              db,
              dispatchKey(rec.observation.harness, rec.observation.callId, key),
              rec.observation,
              detail,
            );
        } else if (recordCompletion(db, completionFromSpool(rec, key))) stats.completions++;
      }
    });
    offset = res.endOffset;
    // Second pass picks up a line a writer appended to the claimed inode while the first pass ran.
    if (statSync(file).size <= offset) break;
  }
}

/** Moves every spool file into the ledger. Never throws for a bad line or file: it logs and goes on. */
export function drainSpool(db: SqlDriver, env: Env = process.env, deadline = Infinity): DrainStats {
  const stats: DrainStats = {
    files: 0,
    lines: 0,
    dispatches: 0,
    completions: 0,
    invalid: 0,
    reconciledPending: 0,
    priced: 0,
  };
  const dir = paths(env).spoolDir;
  const now = Date.now();
  tidyDataDir(env, now);
  // A link or anything but a directory in the spool's place is not drained: its files would be read and deleted.
  try {
    existingPrivateDir(dir);
  } catch (err) {
    diagnose('error', 'observer:drain', `spool directory not drained: ${errorText(err)}`, { dir }, env);
    return stats;
  }
  // A harness's side that cannot append (Claude Code's hooks module) has its records moved into this spool first.
  for (const m of harnessList()) {
    try {
      m.beforeDrain?.(env);
    } catch (err) {
      diagnose('error', 'observer:drain', `${m.id} spool: ${errorText(err)}`, {}, env);
    }
  }
  for (const name of claimable(dir, now)) {
    // Hooks call this synchronously inside their own deadline: unclaimed files simply wait for the next drain.
    if (Date.now() > deadline) break;
    const base = name.replace(/\.draining-.*$/, '');
    const claimed = join(dir, `${base}.draining-${process.pid}-${++claimCounter}`);
    try {
      moveFile(join(dir, name), claimed);
    } catch {
      continue; // another drainer claimed it first
    }
    try {
      ingestFile(db, claimed, stats);
      removeFile(claimed);
      stats.files++;
    } catch (err) {
      // Left claimed: retried as a stale claim; its lines are idempotent. A link or special file under a spool name is
      // no spool: its entry is removed (unlinking a link leaves its target alone), so it is not refused again and again.
      if (err instanceof RefusedFile && err.kind !== 'directory') removeFile(claimed);
      diagnose('error', 'observer:drain', errorText(err), { file: name }, env);
    }
  }
  if (stats.invalid > 0)
    diagnose('warn', 'observer:drain', 'spool lines skipped (invalid or oversize)', { count: stats.invalid }, env);
  return stats;
}

type PendingRow = {
  id: number;
  dedupe_key: string;
  harness: Harness;
  session_id: string | null;
  call_id: string | null;
  agent_id: string | null;
  transcript_path: string;
  ended_at: number;
  started_at: number | null;
  turn_id: string | null;
};

/**
 * Late flush: a completion stored as pending (its transcript lacked the final lines) is re-read from its transcript.
 * Local files only: no network, no model call.
 */
export function reconcilePending(db: SqlDriver, now = Date.now(), deadline = Infinity): number {
  const rows = db
    .prepare(
      `SELECT id, dedupe_key, harness, session_id, call_id, agent_id, transcript_path, ended_at, started_at, turn_id
     FROM completions WHERE status = 'pending' AND transcript_path IS NOT NULL`,
    )
    .all<PendingRow>();
  let done = 0;
  for (const row of rows) {
    if (Date.now() > deadline) break;
    const parser = HARNESSES[row.harness]?.transcripts;
    let child = null;
    if (parser) {
      try {
        const parsed = parser.parseFile(row.transcript_path, { maxBytes: LATE_FLUSH_MAX_BYTES });
        // A per-turn row settles from its own turn only; the whole child would add the other turns' usage to it.
        child = row.turn_id
          ? (parsed.childTurns?.find((t) => t.turnId === row.turn_id) ?? null)
          : (parsed.child ?? parsed.children?.find((c) => c.agentId === row.agent_id) ?? null);
      } catch {
        child = null; // transcript gone or unreadable: stays pending until given up
      }
    }
    if (child && child.complete && child.usage) {
      settleCompletion(db, row.id, child, row.ended_at);
      done++;
    } else if (now - row.ended_at > PENDING_GIVE_UP_MS) {
      db.prepare(`UPDATE completions SET status = 'unknown' WHERE id = ?`).run(row.id);
    }
  }
  return done;
}

/**
 * Late or lost ends of children a harness also records in a store of its own (Hermes: a background child cut off
 * before its subagent_stop, a spool line that failed): a pending completion with no transcript to re-read is settled
 * from that store (HarnessModule.stores) once the store says the child ended. The store is read only while such rows
 * (of the last STORE_SETTLE_MS) wait, from the oldest one's start on; a row still waiting after PENDING_GIVE_UP_MS
 * becomes unknown.
 */
export function settleFromStores(
  db: SqlDriver,
  pricer: Pricer,
  env: Env,
  now = Date.now(),
  deadline = Infinity,
): number {
  let settled = 0;
  for (const m of harnessList()) {
    if (!m.stores || Date.now() > deadline) continue;
    // A day back at most: an older child that never ended is left to `tiergate scan` and the give-up below, so a hook's
    // pass reads only the store's recent rows.
    const waiting = db
      .prepare(
        `SELECT agent_id, COALESCE(started_at, ended_at) AS at FROM completions
         WHERE harness = ? AND status = 'pending' AND transcript_path IS NULL AND agent_id IS NOT NULL
           AND COALESCE(started_at, ended_at) >= ?`,
      )
      .all<{ agent_id: string; at: number }>(m.id, now - STORE_SETTLE_MS);
    if (waiting.length === 0) continue;
    const ids = new Set(waiting.map((w) => w.agent_id));
    const since = waiting.reduce((a, w) => Math.min(a, w.at), Infinity);
    for (const path of m.stores.paths(env, env.HOME || homedir())) {
      if (!existsSync(path)) continue;
      try {
        const budget = Math.max(0, Math.min(500, deadline - Date.now()));
        for (const parse of m.stores.read(path, { since, busyTimeoutMs: budget })) {
          const ended = (parse.children ?? []).filter((c) => ids.has(c.agentId) && c.complete && c.usage);
          const counts = { requestsSeen: 0, requestsNew: 0, dispatches: 0, completions: 0 };
          if (ended.length > 0) db.transaction(() => storeParse(db, { ...parse, children: ended }, pricer, counts));
          settled += counts.completions;
        }
      } catch (err) {
        diagnose('warn', 'observer:store', errorText(err), { harness: m.id, path }, env);
      }
    }
    db.prepare(
      `UPDATE completions SET status = 'unknown' WHERE harness = ? AND status = 'pending' AND transcript_path IS NULL
         AND COALESCE(started_at, ended_at) < ?`,
    ).run(m.id, now - PENDING_GIVE_UP_MS);
  }
  return settled;
}

/**
 * The ledger as a bounded pass sees it: every write transaction waits on another writer's lock only as long as the
 * pass has left (SQLite's wait is synchronous: no timer ends it), so a busy ledger ends the pass at its deadline.
 */
function withinDeadline(db: SqlDriver, deadline: number): SqlDriver {
  if (deadline === Infinity) return db;
  return {
    kind: db.kind,
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    close: () => db.close(),
    transaction: (fn) => {
      setBusyTimeout(db, busyWaitUntil(deadline));
      return db.transaction(fn);
    },
  };
}

/**
 * The whole observer pass: drain spools, reconcile late flushes (transcripts, stores), join and price, check corrections (enforcement.ts).
 * Opens and closes the ledger unless given one. `budgetMs` bounds the drain, the late-flush re-reads and the checks
 * (hooks run it inside their deadline); what is left waits for the next pass. Never throws: a failure is one diagnostic
 * line and a null result.
 */
export function runObserver(env: Env, pricer: Pricer, db?: SqlDriver, budgetMs = Infinity): DrainStats | null {
  const own = !db;
  let ledger: SqlDriver | null = db ?? null;
  const deadline = Date.now() + budgetMs;
  try {
    ledger ??= openLedger(env, { busyTimeoutMs: busyWaitUntil(deadline) });
    const l = withinDeadline(ledger, deadline);
    const stats = drainSpool(l, env, deadline);
    stats.reconciledPending = l.transaction(() => reconcilePending(l, Date.now(), deadline));
    stats.reconciledPending += settleFromStores(l, pricer, env, Date.now(), deadline);
    stats.priced = l.transaction(() => reconcileCompletions(l, pricer).priced);
    // After the join: a correction is checked once its completion is in (enforcement.ts; needs the resolver).
    if (pricer.identify) checkEnforcement(l, pricer.identify, env, deadline);
    // The budgets' spend summary, from the ledger now that it holds and prices what was spooled (spend-record.ts).
    if (Date.now() < deadline) rebuildSpend(l, env);
    return stats;
  } catch (err) {
    diagnose('error', 'observer:run', errorText(err), {}, env);
    return null;
  } finally {
    if (own) ledger?.close();
  }
}
