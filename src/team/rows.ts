/**
 * What a push reads from the local ledger and how each row is sent: the columns of the team tables (schema.ts), read
 * in id order in batches, each row with a fingerprint of everything it sends. No prompt, brief or result text leaves:
 * the fields `report --json` is built from, ids, and short tokens (status, outcome, reason codes). Not sent: transcript
 * paths, call and agent ids, catalog versions.
 */
import type { Harness } from '../contracts/harness.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { VERIFIED_YES } from '../observer/ledger/schema.js';
import type { Pricer } from '../observer/pricing.js';

export type PgType = 'text' | 'bigint' | 'boolean' | 'timestamptz' | 'date';
type Value = string | number | boolean | null;
type Column = { name: string; type: PgType };

/** One kind of pushed record: its team table, the local SELECT (keyset-paged by id), and its columns in that order. */
export type RecordKind = {
  kind: 0 | 1;
  table: 'completions' | 'dispatches';
  /** SQLite: rows with id > ?, by id, at most ? of them; columns `id`, `key`, then exactly `columns` (but derived ones). */
  select: string;
  columns: Column[];
  /** Columns computed in Node from the row read (with the pricer), by name. */
  derive?: (row: Record<string, unknown>, pricer: Pricer) => Record<string, Value>;
};

const col = (name: string, type: PgType): Column => ({ name, type });
const ISO = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const VERIFIED = VERIFIED_YES.map((v) => `'${v}'`).join(', ');

export const COMPLETIONS: RecordKind = {
  kind: 0,
  table: 'completions',
  // Money as integer text: exact past 2^53 (the driver hands INTEGER columns over as doubles).
  select: `SELECT c.id AS id, c.dedupe_key AS key, c.harness, c.session_id, c.subagent_type, c.project, c.tier,
      c.requested_model, c.served_model, c.parent_model, c.status, c.result,
      COALESCE(c.verified IN (${VERIFIED}), 0) AS verified, (c.dispatch_id IS NOT NULL AND c.followup = 0) AS dispatched,
      (c.followup <> 0) AS followup,
      EXISTS (SELECT 1 FROM dispatches d WHERE d.completion_id = c.id AND d.enforcement = 'ignored') AS not_honoured,
      COALESCE(d.action = 'correct', 0) AS corrected,
      CASE WHEN d.action = 'correct' THEN COALESCE(d.requested_model, d.parent_model) END AS baseline_model,
      c.input, c.output, c.cache_read, c.cache_write_5m, c.cache_write_1h, c.reasoning, c.requests,
      CAST(c.cost_pico AS TEXT) AS cost_pico, CAST(c.counterfactual_pico AS TEXT) AS counterfactual_pico,
      c.started_at, c.ended_at, c.day, c.duration_ms, c.usage_source
    FROM completions c LEFT JOIN dispatches d ON d.id = c.dispatch_id WHERE c.id > ? ORDER BY c.id LIMIT ?`,
  columns: [
    col('harness', 'text'), col('session_id', 'text'), col('subagent_type', 'text'), col('project', 'text'), col('tier', 'text'),
    col('requested_model', 'text'), col('served_model', 'text'), col('parent_model', 'text'), col('status', 'text'),
    col('result', 'text'), col('verified', 'boolean'), col('dispatched', 'boolean'), col('followup', 'boolean'),
    col('not_honoured', 'boolean'), col('corrected', 'boolean'), col('baseline_model', 'text'), col('saved_pico', 'bigint'),
    col('input', 'bigint'), col('output', 'bigint'), col('cache_read', 'bigint'),
    col('cache_write_5m', 'bigint'), col('cache_write_1h', 'bigint'), col('reasoning', 'bigint'), col('requests', 'bigint'),
    col('cost_pico', 'bigint'), col('counterfactual_pico', 'bigint'), col('started_at', 'timestamptz'),
    col('ended_at', 'timestamptz'), col('day', 'date'), col('duration_ms', 'bigint'), col('usage_source', 'text'),
  ],
  derive: (r, pricer) => ({ saved_pico: savedPico(r, pricer) }),
};

/**
 * A corrected run's saving as the local report prices it (report/decision-savings.ts): its usage at the model the
 * dispatch named (else the parent's) minus what it cost; priced with the catalog in effect at the push (a price that
 * changes later changes the fingerprint, and the row is sent again). Null when either side cannot be priced.
 */
function savedPico(r: Record<string, unknown>, pricer: Pricer): string | null {
  if (!r.corrected || r.cost_pico === null || r.input === null || !r.baseline_model) return null;
  const n = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
  const would = pricer.price(String(r.baseline_model), r.harness as Harness, {
    input: n(r.input), output: n(r.output), cacheRead: n(r.cache_read), cacheWrite5m: n(r.cache_write_5m),
    cacheWrite1h: n(r.cache_write_1h), reasoning: n(r.reasoning), requests: Math.max(1, n(r.requests) || 1),
  });
  return would ? (would.picoUsd - BigInt(String(r.cost_pico))).toString() : null;
}

export const DISPATCHES: RecordKind = {
  kind: 1,
  table: 'dispatches',
  select: `SELECT d.id AS id, d.dedupe_key AS key, d.harness, d.session_id, d.project, d.at,
      strftime('%Y-%m-%d', d.at / 1000, 'unixepoch') AS day, d.parent_model, d.requested_model, d.requested_agent,
      d.requested_tier, d.subagent_type, d.action, d.reason, d.tier, d.effective_model, d.enforcement, d.source,
      (d.completion_id IS NOT NULL) AS completed, c.dedupe_key AS completion_key
    FROM dispatches d LEFT JOIN completions c ON c.id = d.completion_id WHERE d.id > ? ORDER BY d.id LIMIT ?`,
  columns: [
    col('harness', 'text'), col('session_id', 'text'), col('project', 'text'), col('at', 'timestamptz'), col('day', 'date'),
    col('parent_model', 'text'), col('requested_model', 'text'), col('requested_agent', 'text'), col('requested_tier', 'text'),
    col('subagent_type', 'text'), col('action', 'text'), col('reason', 'text'), col('tier', 'text'),
    col('effective_model', 'text'), col('enforcement', 'text'), col('source', 'text'), col('completed', 'boolean'),
    col('completion_key', 'text'),
  ],
};

export const RECORD_KINDS = [COMPLETIONS, DISPATCHES] as const;

/**
 * One local row as sent: its local id (for the push state), its key, `[key, ...values]` in column order as JSON (the
 * batch's body is these joined), and the fingerprint of that text and the person label.
 */
export type OutRow = { id: number; key: string; json: string; fp: number };

/** The value a column sends, from SQLite's (ms times, 0/1 booleans, integers as doubles or text). */
function convert(type: PgType, v: unknown): Value {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'boolean': return v === 1 || v === true || v === '1';
    case 'timestamptz': return ISO(Number(v));
    case 'bigint': return typeof v === 'string' ? v : Math.trunc(Number(v));
    default: return String(v);
  }
}

/**
 * cyrb53 (public domain): 53 bits of a string, for "did this row change since it was sent". A changed row keeping its
 * old fingerprint is a 2^-53 chance; crypto hashes cost several times more per row on a million-row push.
 */
export function fingerprint(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * The next batch of `kind` after local id `after`: rows converted, each fingerprinted over its key, values and the
 * person label it is sent under (a new label sends every row again, so a person's rows keep one label).
 */
export function readBatch(db: SqlDriver, kind: RecordKind, after: number, limit: number, user: string, pricer: Pricer): OutRow[] {
  const raw = db.prepare(kind.select).all<Record<string, unknown>>(after, limit);
  return raw.map((r) => {
    const derived = kind.derive?.(r, pricer) ?? {};
    const key = String(r.key);
    const json = JSON.stringify([key, ...kind.columns.map((c) => convert(c.type, Object.hasOwn(derived, c.name) ? derived[c.name] : r[c.name]))]);
    return { id: Number(r.id), key, json, fp: fingerprint(`${user}\u0000${json}`) };
  });
}
