/**
 * What a push reads from the local ledger and how each row is sent: the columns of the team tables (schema.ts), read
 * in id order in batches, each row with a fingerprint of everything it sends. No prompt, brief or result text leaves:
 * the fields `report --json` is built from, ids, and short tokens (status, outcome, reason codes). Not sent: transcript
 * paths, call and agent ids, catalog versions.
 *
 * SQLite writes each row's JSON itself (json_array): the push reads one text per row instead of ~35 values, which
 * matters because every push reads the whole ledger to find what changed (a million-row ledger, every session end).
 * Integers stay exact in it (64-bit, past 2^53), times go as epoch milliseconds and become timestamptz on the server.
 */
import type { Harness } from '../contracts/harness.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { VERIFIED_YES } from '../observer/ledger/schema.js';
import type { Pricer } from '../observer/pricing.js';

/** A team column's type; `ms` is a timestamptz sent as epoch milliseconds. */
export type PgType = 'text' | 'bigint' | 'boolean' | 'ms' | 'date';
/** A column: its name in the team table, its type, and its SQLite expression (NULL-able) over the kind's FROM. */
type Column = { name: string; type: PgType; sql: string };

/** One kind of pushed record: its team table and how its rows are read, keyset-paged by local id. */
export type RecordKind = {
  kind: 0 | 1;
  table: 'completions' | 'dispatches';
  /** Columns read by SQLite, in the order of the row's JSON (after the key). */
  columns: Column[];
  /** Columns computed here (after `columns` in the JSON), from `extra` (a JSON text SQLite gives, or null). */
  derived?: {
    columns: Omit<Column, 'sql'>[];
    extra: string;
    derive: (extra: unknown[] | null, pricer: Pricer) => (string | null)[];
  };
  from: string;
};

const c = (name: string, type: PgType, sql = `c.${name}`): Column => ({ name, type, sql });
const VERIFIED = VERIFIED_YES.map((v) => `'${v}'`).join(', ');

export const COMPLETIONS: RecordKind = {
  kind: 0,
  table: 'completions',
  from: 'completions c LEFT JOIN dispatches d ON d.id = c.dispatch_id',
  columns: [
    c('harness', 'text'),
    c('session_id', 'text'),
    c('subagent_type', 'text'),
    c('project', 'text'),
    c('tier', 'text'),
    c('requested_model', 'text'),
    c('served_model', 'text'),
    c('parent_model', 'text'),
    c('status', 'text'),
    c('result', 'text'),
    c('verified', 'boolean', `COALESCE(c.verified IN (${VERIFIED}), 0)`),
    c('dispatched', 'boolean', '(c.dispatch_id IS NOT NULL AND c.followup = 0)'),
    c('followup', 'boolean', '(c.followup <> 0)'),
    c(
      'not_honoured',
      'boolean',
      "EXISTS (SELECT 1 FROM dispatches i WHERE i.completion_id = c.id AND i.enforcement = 'ignored')",
    ),
    c('corrected', 'boolean', "COALESCE(d.action = 'correct', 0)"),
    c('baseline_model', 'text', "CASE WHEN d.action = 'correct' THEN COALESCE(d.requested_model, d.parent_model) END"),
    c('input', 'bigint'),
    c('output', 'bigint'),
    c('cache_read', 'bigint'),
    c('cache_write_5m', 'bigint'),
    c('cache_write_1h', 'bigint'),
    c('reasoning', 'bigint'),
    c('requests', 'bigint'),
    c('cost_pico', 'bigint'),
    c('counterfactual_pico', 'bigint'),
    c('started_at', 'ms'),
    c('ended_at', 'ms'),
    c('day', 'date'),
    c('duration_ms', 'bigint'),
    c('usage_source', 'text'),
  ],
  // A corrected run's saving is priced here (report/decision-savings.ts prices it the same way), from what SQLite
  // hands over for corrected runs only.
  derived: {
    columns: [{ name: 'saved_pico', type: 'bigint' }],
    extra: `CASE WHEN d.action = 'correct' THEN json_array(COALESCE(d.requested_model, d.parent_model), c.harness,
      c.input, c.output, c.cache_read, c.cache_write_5m, c.cache_write_1h, c.reasoning, c.requests, CAST(c.cost_pico AS TEXT)) END`,
    derive: (x, pricer) => [savedPico(x, pricer)],
  },
};

export const DISPATCHES: RecordKind = {
  kind: 1,
  table: 'dispatches',
  from: 'dispatches c LEFT JOIN completions d ON d.id = c.completion_id',
  columns: [
    c('harness', 'text'),
    c('session_id', 'text'),
    c('project', 'text'),
    c('at', 'ms'),
    c('day', 'date', "strftime('%Y-%m-%d', c.at / 1000, 'unixepoch')"),
    c('parent_model', 'text'),
    c('requested_model', 'text'),
    c('requested_agent', 'text'),
    c('requested_tier', 'text'),
    c('subagent_type', 'text'),
    c('action', 'text'),
    c('reason', 'text'),
    c('tier', 'text'),
    c('effective_model', 'text'),
    c('enforcement', 'text'),
    c('source', 'text'),
    c('completed', 'boolean', '(c.completion_id IS NOT NULL)'),
    c('completion_key', 'text', 'd.dedupe_key'),
  ],
};

export const RECORD_KINDS = [COMPLETIONS, DISPATCHES] as const;

/** Every column a kind sends, in the order of its rows' JSON (after the key). */
export const sentColumns = (kind: RecordKind): Omit<Column, 'sql'>[] => [
  ...kind.columns,
  ...(kind.derived?.columns ?? []),
];

/**
 * A corrected run's saving: its usage at the model the dispatch named (else the parent's) minus what it cost, priced
 * with the catalog in effect at the push (a price that changes later changes the fingerprint: the row goes again).
 * Null when either side cannot be priced.
 */
function savedPico(x: unknown[] | null, pricer: Pricer): string | null {
  if (!x) return null;
  const [baseline, harness, input, output, cacheRead, cw5m, cw1h, reasoning, requests, cost] = x as (
    | string
    | number
    | null
  )[];
  if (cost === null || cost === undefined || input === null || !baseline) return null;
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const would = pricer.price(String(baseline), harness as Harness, {
    input: n(input),
    output: n(output),
    cacheRead: n(cacheRead),
    cacheWrite5m: n(cw5m),
    cacheWrite1h: n(cw1h),
    reasoning: n(reasoning),
    requests: Math.max(1, n(requests) || 1),
  });
  return would ? (would.picoUsd - BigInt(String(cost))).toString() : null;
}

/** One local row as sent: its local id (for the push state), its key, `[key, ...values]` as JSON, and its fingerprint. */
export type OutRow = { id: number; key: string; json: string; fp: number };

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

const SELECT = new Map<RecordKind, string>();

function selectSql(kind: RecordKind): string {
  return `SELECT c.id AS id, c.dedupe_key AS key, json_array(c.dedupe_key, ${kind.columns.map((col) => col.sql).join(', ')}) AS json,
      ${kind.derived?.extra ?? 'NULL'} AS extra
    FROM ${kind.from} WHERE c.id > ? ORDER BY c.id LIMIT ?`;
}

/**
 * The next batch of `kind` after local id `after`, each row fingerprinted over its JSON and the person label it is
 * sent under (a new label sends every row again, so a person's rows keep one label).
 */
export function readBatch(
  db: SqlDriver,
  kind: RecordKind,
  after: number,
  limit: number,
  user: string,
  pricer: Pricer,
): OutRow[] {
  let sql = SELECT.get(kind);
  if (!sql) SELECT.set(kind, (sql = selectSql(kind)));
  const rows = db.prepare(sql).all<{ id: number; key: string; json: string; extra: string | null }>(after, limit);
  const out: OutRow[] = new Array(rows.length);
  const prefix = `${user}\u0000`;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    let json = r.json;
    if (kind.derived) {
      const more = kind.derived.derive(r.extra === null ? null : (JSON.parse(r.extra) as unknown[]), pricer);
      json = `${json.slice(0, -1)},${more.map((v) => JSON.stringify(v)).join(',')}]`;
    }
    out[i] = { id: r.id, key: r.key, json, fp: fingerprint(prefix + json) };
  }
  return out;
}
