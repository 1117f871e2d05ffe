/**
 * What a push reads from the local ledger and how each row is sent: the columns of the team tables (schema.ts), read
 * in the order of the ledger's change counter (`rev`, ledger migration 8) in batches. No prompt, brief or result text
 * leaves: the fields `report --json` is built from, ids, and short tokens (status, outcome, reason codes). Not sent:
 * transcript paths, call and agent ids, catalog versions.
 *
 * SQLite writes each row as a line of PostgreSQL's COPY text format itself (tab-separated, `\N` for NULL, backslash
 * escapes): the push reads one text per row instead of ~35 values and hands the lines to COPY as they are. Integers
 * stay exact (64-bit, past 2^53); times go as epoch milliseconds and become timestamptz on the server.
 */
import { createHash } from 'node:crypto';
import type { Harness } from '../contracts/harness.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { VERIFIED_YES } from '../observer/ledger/schema.js';
import type { Pricer } from '../observer/pricing.js';
import { ledgerText } from '../observer/ledger/text.js';
import { savedOf } from '../report/decision-savings.js';

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
  from: 'completions c LEFT JOIN dispatches d ON d.id = c.dispatch_id LEFT JOIN decisions o ON o.dispatch_id = c.dispatch_id',
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
    c(
      'baseline_model',
      'text',
      "CASE WHEN d.action = 'correct' THEN COALESCE(o.without_model, d.requested_model, d.parent_model) END",
    ),
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
    c('corrected_to', 'text', "CASE WHEN d.action = 'correct' THEN o.to_value END"),
  ],
  // A corrected run's saving is priced here (report/decision-savings.ts prices it the same way), from what SQLite
  // hands over for corrected runs only: at its decision record's rates, else (dispatches from before the record) by the
  // old estimate at the catalog in effect now.
  derived: {
    columns: [
      { name: 'saved_pico', type: 'bigint' },
      { name: 'saved_basis', type: 'text' },
    ],
    extra: `CASE WHEN d.action = 'correct' THEN json_array(COALESCE(d.requested_model, d.parent_model), c.harness,
      c.input, c.output, c.cache_read, c.cache_write_5m, c.cache_write_1h, c.reasoning, c.requests, CAST(c.cost_pico AS TEXT),
      o.kind, o.without_rates) END`,
    derive: (x, pricer) => savedPico(x, pricer),
  },
};

export const DISPATCHES: RecordKind = {
  kind: 1,
  table: 'dispatches',
  from: 'dispatches c LEFT JOIN completions d ON d.id = c.completion_id LEFT JOIN decisions o ON o.dispatch_id = c.id',
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
    c('without_model', 'text', 'o.without_model'),
    c('without_from', 'text', 'o.without_from'),
    c('parent_from', 'text', 'o.parent_from'),
    c('decision', 'text', 'o.kind'),
    c('to_value', 'text', 'o.to_value'),
    c('to_model', 'text', 'o.to_model'),
    c('without_rates', 'text', 'o.without_rates'),
    c('chosen_rates', 'text', 'o.chosen_rates'),
    c('budget', 'text', 'o.budget'),
    c('join_method', 'text', 'o.join_method'),
  ],
};

export const RECORD_KINDS = [COMPLETIONS, DISPATCHES] as const;

/** Every column a kind sends, in the order of its rows' JSON (after the key). */
export const sentColumns = (kind: RecordKind): Omit<Column, 'sql'>[] => [
  ...kind.columns,
  ...(kind.derived?.columns ?? []),
];

/**
 * A corrected run's saving and its basis, as the local report prices it (report/decision-savings.ts): with a decision
 * record, its usage at the without-tiergate model's rates at decision time ("recorded"); before the record, at the
 * model the dispatch named (else the parent's) with the catalog in effect at the push ("estimated"; prices that change
 * later send every corrected run again: pricingSignature). Null when either side cannot be priced.
 */
function savedPico(x: unknown[] | null, pricer: Pricer): [string | null, string | null] {
  if (!x) return [null, null];
  const [baseline, harness, input, output, cacheRead, cw5m, cw1h, reasoning, requests, cost, kind, rates] = x as (
    | string
    | number
    | null
  )[];
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  const s = savedOf(
    {
      harness: harness as Harness,
      baseline: baseline === null ? null : String(baseline),
      cost: cost === null || cost === undefined ? null : String(cost),
      input: num(input),
      output: num(output),
      cache_read: num(cacheRead),
      cache_write_5m: num(cw5m),
      cache_write_1h: num(cw1h),
      reasoning: num(reasoning),
      requests: num(requests),
      kind: kind === null || kind === undefined ? null : String(kind),
      rates: rates === null || rates === undefined ? null : String(rates),
    },
    pricer,
  );
  return s ? [s.saved.toString(), s.basis] : [null, null];
}

/** One local row as sent: its change number (the push's cursor), its key, and its line of COPY text (no newline). */
export type OutRow = { rev: number; key: string; line: string };

/**
 * A column's value as COPY text in SQLite. Text is escaped only when it holds a backslash, tab, newline or carriage
 * return (one GLOB over the value; escaping every value took longer than the rest of the read).
 */
function copyText(col: Column): string {
  const e = col.sql;
  switch (col.type) {
    case 'text':
    case 'date':
      return `CASE WHEN ${e} IS NULL THEN '\\N' WHEN ${e} GLOB '*[\\' || char(9, 10, 13) || ']*' THEN replace(replace(replace(replace(${e}, '\\', '\\\\'), char(9), '\\t'), char(10), '\\n'), char(13), '\\r') ELSE ${e} END`;
    case 'boolean':
      return `CASE WHEN ${e} THEN 't' ELSE 'f' END`;
    case 'bigint':
    case 'ms':
      return `COALESCE(CAST(${e} AS TEXT), '\\N')`;
  }
}

/** A value computed here as COPY text. */
function copyEscape(v: string | null): string {
  if (v === null) return '\\N';
  return v.replace(/[\\\t\n\r]/g, (ch) => (ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r'));
}

/** Where a kind's rows are in change order: the counter, or the id for rows from before it (ledger migration 8). */
const REV = 'COALESCE(c.rev, c.id)';

const SELECT = new Map<string, string>();

/** Completions whose dispatch tiergate corrected: the rows whose pushed saving a change of prices changes. */
const CORRECTED = "c.dispatch_id IN (SELECT id FROM dispatches WHERE action = 'correct')";

function selectSql(kind: RecordKind, corrected: boolean): string {
  const key: Column = { name: 'key', type: 'text', sql: 'c.dedupe_key' };
  const line = [key, ...kind.columns].map(copyText).join(' || char(9) || ');
  return `SELECT ${REV} AS rev, c.dedupe_key AS key, ${line} AS line, ${kind.derived?.extra ?? 'NULL'} AS extra
    FROM ${kind.from} WHERE ${REV} > ?${corrected ? ` AND ${CORRECTED}` : ''} ORDER BY ${REV} LIMIT ?`;
}

/**
 * The next batch of `kind` changed after change number `after`, in change order; `corrected`: only completions of
 * corrected dispatches (every one of them, when prices changed since the last push).
 */
export function readBatch(
  db: SqlDriver,
  kind: RecordKind,
  after: number,
  limit: number,
  pricer: Pricer,
  corrected = false,
): OutRow[] {
  const id = `${kind.kind}:${corrected}`;
  let sql = SELECT.get(id);
  if (!sql) SELECT.set(id, (sql = selectSql(kind, corrected)));
  const rows = db.prepare(sql).all<{ rev: number; key: string; line: string; extra: string | null }>(after, limit);
  const out: OutRow[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    let line = r.line;
    if (kind.derived) {
      const more = kind.derived.derive(r.extra === null ? null : (JSON.parse(r.extra) as unknown[]), pricer);
      for (const v of more) line += `\t${copyEscape(v)}`;
    }
    // A ledger written before its text was cleaned at the write (observer/ledger/text.ts) may hold NUL: PostgreSQL
    // refuses it, and one such row stopped every push. Cleaned on the way out too (no cap here: the server takes any
    // length), the same rule, so the key is the one a cleaned write would have made.
    out[i] = {
      rev: r.rev,
      key: ledgerText(r.key, Number.MAX_SAFE_INTEGER),
      line: ledgerText(line, Number.MAX_SAFE_INTEGER),
    };
  }
  return out;
}

/**
 * What the prices in effect say about the models corrected runs are measured against: each (model, harness) pair's
 * price of a fixed usage, hashed. When it differs from the last push's, every corrected run is sent again (its saving
 * is priced at the push).
 */
export function pricingSignature(db: SqlDriver, pricer: Pricer): string {
  const pairs = db
    .prepare(
      `SELECT DISTINCT COALESCE(requested_model, parent_model) AS model, harness FROM dispatches
       WHERE action = 'correct' AND COALESCE(requested_model, parent_model) IS NOT NULL ORDER BY 1, 2`,
    )
    .all<{ model: string; harness: Harness }>();
  const probe = (n: number) => ({
    input: n,
    output: n,
    cacheRead: n,
    cacheWrite5m: n,
    cacheWrite1h: n,
    reasoning: n,
    requests: 1,
  });
  const hash = createHash('sha256');
  for (const p of pairs) {
    const small = pricer.price(p.model, p.harness, probe(1_000));
    const large = pricer.price(p.model, p.harness, probe(1_000_000));
    hash.update(`${p.model}\u0000${p.harness}\u0000${small?.picoUsd ?? '-'}\u0000${large?.picoUsd ?? '-'}\n`);
  }
  return hash.digest('hex');
}
