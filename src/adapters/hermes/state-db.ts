/**
 * Hermes Agent's own record of its delegated children, `$HERMES_HOME/state.db` (hermes-agent 0.19.0, SQLite in WAL
 * mode; DDL in test/fixtures/hermes/state-db-0.19.0.sql), read for `tiergate scan` and the observer pass when the
 * plugin's spool lines were lost or came late. Read-only (query_only), bounded (the newest STATE_DB_MAX_ROWS children
 * and as many per-model rows), never through a link, and only numbers, ids and model names: no prompt column (system
 * prompt, title, origin, messages) is ever selected.
 *
 * What 0.19.0 writes (seen): a delegated child is a `sessions` row with `source = 'subagent'` and `parent_session_id`
 * set (a compression continuation or a /branch also has a parent, but keeps its parent's source); `end_reason` is
 * `agent_close` whether the child's run succeeded or failed, and `ended_at` stays NULL for a background child
 * interrupted when a one-shot parent exits. `sessions.model` and `session_model_usage.model` keep the configured model
 * even when tiergate's llm_request correction sent the child's requests on another, so that name yields to a served
 * model already recorded (CompletionRow.modelAsConfigured). Hermes' own cost estimate is not used: it is 0 with
 * cost_status `unknown` on a custom endpoint (seen); tiergate prices the tokens itself.
 */
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';
import type { Usage } from '../../contracts/usage.js';
import { kindOf, RefusedFile } from '../../io/read-capped.js';
import type { Env } from '../../io/paths.js';
import type { SqlDriver } from '../../observer/ledger/driver.js';
import { openBetterSqlite } from '../../observer/ledger/driver-better-sqlite3.js';
import { openBunSqlite } from '../../observer/ledger/driver-bun-sqlite.js';
import { runtimeDriver } from '../../observer/ledger/open.js';
import type { ChildSummary, FileParse, StoreReadOptions } from '../../observer/transcripts.js';

/** Children read per pass, newest first; the per-model rows are capped the same. */
export const STATE_DB_MAX_ROWS = 5000;
/** How long a read waits on a lock Hermes holds (exclusive locking mode, WAL recovery) before it gives up. */
export const STATE_DB_BUSY_MS = 500;

/** `$HERMES_HOME/state.db`, HERMES_HOME defaulting to ~/.hermes as Hermes' own get_hermes_home() does. */
export function stateDbPath(env: Env, home: string): string {
  return join(env.HERMES_HOME || join(home, '.hermes'), 'state.db');
}

/**
 * The file, its -wal and -shm and the folder holding them: no link, nothing but a regular file (a directory for the
 * folder). SQLite follows links when it opens, so this runs before it does (throws RefusedFile).
 */
function refuseLinks(file: string): void {
  const dir = lstatSync(dirname(file));
  if (!dir.isDirectory()) throw new RefusedFile(dirname(file), kindOf(dir), 'directory');
  const main = lstatSync(file);
  if (!main.isFile()) throw new RefusedFile(file, kindOf(main));
  for (const part of [`${file}-wal`, `${file}-shm`]) {
    let st;
    try {
      st = lstatSync(part);
    } catch {
      continue; // absent: a checkpointed database
    }
    if (!st.isFile()) throw new RefusedFile(part, kindOf(st));
  }
}

type ChildRow = {
  id: string;
  parent: string;
  model: string | null;
  started_at: number;
  ended_at: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  api_call_count: number | null;
  project: string | null;
};
type ModelRow = { session_id: string; model: string; output_tokens: number | null; last_seen: number | null };

// Columns named one by one (never `*`): the rows also hold the system prompt, the title and the origin. `since` is on
// started_at, which Hermes indexes (idx_sessions_started), and the unary `+` keeps SQLite off the source index: newest
// first, it stops at the limit or at `since` and never visits older rows, each of which it would read through its
// system prompt's overflow pages (the columns after the prompt are stored after it).
const CHILDREN = `SELECT s.id, s.parent_session_id AS parent, s.model, s.started_at, s.ended_at,
    s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens, s.api_call_count,
    p.cwd AS project
  FROM sessions s LEFT JOIN sessions p ON p.id = s.parent_session_id
  WHERE s.started_at >= ? AND +s.source = 'subagent' AND +s.parent_session_id IS NOT NULL
  ORDER BY s.started_at DESC LIMIT ?`;
const MODELS = `SELECT u.session_id, u.model, u.output_tokens, u.last_seen FROM session_model_usage u
  WHERE u.session_id IN (SELECT id FROM sessions WHERE started_at >= ? AND +source = 'subagent'
    AND +parent_session_id IS NOT NULL ORDER BY started_at DESC LIMIT ?)
  ORDER BY u.last_seen DESC LIMIT ?`;

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const ms = (seconds: number | null): number | null =>
  typeof seconds === 'number' && Number.isFinite(seconds) ? Math.round(seconds * 1000) : null;

/**
 * The child's tokens as Hermes sums them per session (0.19.0 counts input without the cache reads and writes, as the
 * post_api_request usage the plugin spools does); null when it made no request that returned usage.
 */
function usageOf(r: ChildRow): Usage | null {
  const u: Usage = {
    input: count(r.input_tokens),
    output: count(r.output_tokens),
    cacheRead: count(r.cache_read_tokens),
    cacheWrite5m: count(r.cache_write_tokens),
    cacheWrite1h: 0,
    reasoning: count(r.reasoning_tokens),
    requests: Math.max(1, count(r.api_call_count)),
  };
  return u.input + u.output + u.cacheRead + u.cacheWrite5m > 0 ? u : null;
}

/** The model of the most output among the child's per-model rows (ties: the later one), else its session's model. */
function servedModel(child: ChildRow, models: readonly ModelRow[]): string | null {
  let best: ModelRow | null = null;
  for (const m of models) {
    const better =
      !best ||
      count(m.output_tokens) > count(best.output_tokens) ||
      (count(m.output_tokens) === count(best.output_tokens) && (m.last_seen ?? 0) > (best.last_seen ?? 0));
    if (better) best = m;
  }
  return best?.model || child.model || null;
}

function openReadOnly(file: string, busyMs: number): SqlDriver {
  const opts = { busyTimeoutMs: busyMs, readonly: true };
  const db = runtimeDriver() === 'bun:sqlite' ? openBunSqlite(file, opts) : openBetterSqlite(file, opts);
  try {
    db.exec(`PRAGMA busy_timeout = ${busyMs}`);
    db.exec('PRAGMA query_only = 1');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * Hermes' delegated children in `file`, one FileParse per parent session (its id is the ledger's session, its cwd the
 * project), each child keyed by its own session id as the plugin's spool lines are (completionKey hermes:agent:<id>).
 * Throws on a refused, locked, busy or damaged file: the caller reports it once and goes on without it.
 */
export function readStateDb(file: string, opts: StoreReadOptions = {}): FileParse[] {
  refuseLinks(file);
  const max = Math.max(1, Math.min(opts.maxRows ?? STATE_DB_MAX_ROWS, STATE_DB_MAX_ROWS));
  const since = opts.since != null ? opts.since / 1000 : 0;
  const db = openReadOnly(file, Math.max(0, Math.floor(opts.busyTimeoutMs ?? STATE_DB_BUSY_MS)));
  let children: ChildRow[];
  let models: ModelRow[];
  try {
    children = db.prepare(CHILDREN).all<ChildRow>(since, max);
    models = children.length > 0 ? db.prepare(MODELS).all<ModelRow>(since, max, max) : [];
  } finally {
    db.close();
  }
  const modelsOf = new Map<string, ModelRow[]>();
  for (const m of models) modelsOf.set(m.session_id, [...(modelsOf.get(m.session_id) ?? []), m]);
  const byParent = new Map<string, FileParse>();
  for (const c of children) {
    const startedAt = ms(c.started_at);
    const endedAt = ms(c.ended_at);
    const lastSeen = Math.max(0, ...(modelsOf.get(c.id) ?? []).map((m) => ms(m.last_seen) ?? 0));
    const child: ChildSummary = {
      agentId: c.id,
      callId: null,
      subagentType: null,
      requestedModel: c.model,
      servedModel: servedModel(c, modelsOf.get(c.id) ?? []),
      usage: usageOf(c),
      outcome: { result: null, verified: null, escalationFrom: null },
      // Ended is all state.db says: 0.19.0 writes agent_close for a failed child too. Not ended: interrupted or running.
      complete: endedAt !== null,
      incomplete: endedAt === null,
      startedAt,
      endedAt: endedAt ?? (lastSeen || startedAt),
      modelAsConfigured: true,
    };
    let parse = byParent.get(c.parent);
    if (!parse) {
      parse = {
        harness: 'hermes',
        sessionId: c.parent,
        project: c.project,
        requests: [],
        dispatches: [],
        child: null,
        children: [],
        bytesRead: 0,
        truncated: children.length >= max,
      };
      byParent.set(c.parent, parse);
    }
    parse.children!.push(child);
  }
  return [...byParent.values()];
}
