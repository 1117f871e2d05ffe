/**
 * The rows behind every report view. Pure SQL aggregation over the ledger (completions carry the fields copied from
 * their dispatch at join time, so no join runs here); formatting lives in format-*.ts.
 */
import { DESCRIPTORS } from '../descriptors/index.js';
import { HARNESS_IDS, type Harness, type HarnessDescriptor } from '../contracts/harness.js';
import type { Money, Report, ReportBy, ReportFilters, ReportRow } from '../contracts/report.js';
import type { SqlDriver, SqlValue } from '../observer/ledger/driver.js';
import { picoToUsd } from '../observer/pricing.js';
import { VERIFIED_YES } from '../observer/ledger/schema.js';
import type { Pricer } from '../observer/pricing.js';
import { ledgerSpan, zonedDaySql } from './day-sql.js';
import { withSessionDetails, wholeUsage } from './context.js';
import { scopeFilters, scopeWhere } from './scope-sql.js';
import { priceDecisions, type CorrectedRun, type DecidedAgg } from './decision-savings.js';
import { fillDays } from './day-fill.js';

/** The local ledger has one person's rows: `--by user` groups only the team's (src/team/report.ts). */
export type LocalReportBy = Exclude<ReportBy, 'user'>;

export type ReportQuery = {
  by: LocalReportBy;
  since?: number | null;
  until?: number | null;
  harness?: Harness | null;
  session?: string | null;
  project?: string | null;
  /** IANA zone whose calendar days `--by day` groups by (the CLI's default: the local zone); absent or null: UTC. */
  timeZone?: string | null;
};

export { VERIFIED_YES };

const DAY_MS = 86_400_000;

/** Grouping column, the same name in completions and completion_rollup. */
const GROUP_COLUMN: Record<LocalReportBy, string> = {
  session: 'session_id',
  agent: 'subagent_type',
  tier: 'tier',
  model: 'served_model',
  harness: 'harness',
  day: 'day',
};
const GROUP_DISPATCH: Record<LocalReportBy, string> = {
  session: 'session_id',
  agent: 'COALESCE(subagent_type, requested_agent)',
  tier: 'tier',
  // A dispatch that never completed has no served model.
  model: 'NULL',
  harness: 'harness',
  day: "strftime('%Y-%m-%d', at / 1000, 'unixepoch')",
};

/** One group's measures as a source's SQL returns them (pico sums as integer text); the team ledger's SQL too. */
export type Agg = {
  g: string | null;
  runs: number;
  dispatched: number;
  completed: number;
  pending: number;
  verified: number;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  cost: string;
  priced_runs: number;
  unpriced: number;
  no_usage: number;
  cf: string;
  cf_cost: string;
  comparable: number;
  usage_unreported: number;
};
/** `corrected`: of `runs`, those whose dispatch tiergate corrected (decision records only). */
export type Pair = {
  g: string | null;
  requested: string | null;
  served: string | null;
  runs: number;
  corrected?: number;
};
/** `corrected`: dispatches tiergate corrected that never completed (absent from a source that does not count them). */
export type OpenAgg = {
  g: string | null;
  n: number;
  denied: number;
  usage_unreported: number;
  corrected?: number;
  /** Denied dispatches followed in their session by a dispatch that ran (a retry on a cheaper model). */
  retried?: number;
  /** Of `denied`, refused by a fan-out limit. */
  limit_denied?: number;
  /** Stopped children's records (reason child-stopped): not in `n` or `denied` (they are no dispatch). */
  stopped?: number;
  /** Asks (action ask) whose child never ran: refused, or not finished yet. */
  asked?: number;
};
/** Asks whose child ran (the person approved), grouped like their runs, each dispatch once. */
export type AskedRanAgg = { g: string | null; n: number };
/** What corrections set (a model alias or an agent), per group, each dispatch once (decision records only). */
export type CorrectedToAgg = { g: string | null; value: string | null; n: number };
export type IgnoredAgg = { g: string | null; n: number };
/** Runs billed by request at a multiplier (descriptor requestBilling), per group. */
type MultiplierAgg = { g: string | null; n: number; lo: number; hi: number };

/**
 * The measures per group, and apart from them the runs per (group, requested, served) pair: summing every measure per
 * pair made --by session finalise 17 aggregates for each of ~10 pairs in each of thousands of sessions.
 */
type Aggregates = { groups: Agg[]; pairs: Pair[] };

/**
 * The ids of the harnesses whose completions carry no usage (their descriptor's reportsUsage is false: Cursor), from
 * the registry. A run of one is counted so that a group of only such runs reads "usage not reported", not "free".
 */
export const noUsageHarnesses = (
  descriptors: Iterable<Pick<HarnessDescriptor, 'id' | 'reportsUsage'>> = HARNESS_IDS.map((h) => DESCRIPTORS[h]),
): string[] => [...descriptors].filter((d) => !d.reportsUsage).map((d) => d.id);

/**
 * `harness` is one of those ids, in SQL: a placeholder per id (the ids are bound before the WHERE clause's parameters,
 * as the select list comes first), or false for none.
 */
const isNoUsage = (ids: readonly string[]): string =>
  ids.length ? `harness IN (${ids.map(() => '?').join(', ')})` : '0';

const rawMeasures = (noUsage: readonly string[]) => `COUNT(*) AS runs,
  SUM(dispatch_id IS NOT NULL AND followup = 0) AS dispatched, SUM(status = 'ok') AS completed, SUM(status = 'pending') AS pending,
  SUM(COALESCE(verified IN (${VERIFIED_YES.map((v) => `'${v}'`).join(', ')}), 0)) AS verified,
  SUM(COALESCE(input, 0)) AS input, SUM(COALESCE(output, 0)) AS output, SUM(COALESCE(cache_read, 0)) AS cache_read,
  SUM(COALESCE(cache_write_5m, 0) + COALESCE(cache_write_1h, 0)) AS cache_write,
  CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS cost, COUNT(cost_pico) AS priced_runs,
  SUM(cost_pico IS NULL AND input IS NOT NULL) AS unpriced, SUM(input IS NULL) AS no_usage,
  CAST(COALESCE(SUM(CASE WHEN counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL THEN counterfactual_pico END), 0) AS TEXT) AS cf,
  CAST(COALESCE(SUM(CASE WHEN counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL THEN cost_pico END), 0) AS TEXT) AS cf_cost,
  SUM(counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL) AS comparable, SUM(${isNoUsage(noUsage)}) AS usage_unreported`;

/**
 * The rollups are keyed by harness, so their runs without usage (`usage_unreported`) are summed by the registry's ids
 * here: no rollup column names a harness (ledger migration 11 dropped the one that did).
 */
const rollupSums = (
  noUsage: readonly string[],
) => `SUM(runs) AS runs, SUM(dispatched) AS dispatched, SUM(completed) AS completed, SUM(pending) AS pending,
  SUM(verified) AS verified, SUM(input) AS input, SUM(output) AS output, SUM(cache_read) AS cache_read,
  SUM(cache_write) AS cache_write, CAST(SUM(cost_pico) AS TEXT) AS cost, SUM(priced_runs) AS priced_runs,
  SUM(unpriced) AS unpriced, SUM(no_usage) AS no_usage, CAST(SUM(cf_pico) AS TEXT) AS cf,
  CAST(SUM(cf_cost_pico) AS TEXT) AS cf_cost, SUM(comparable) AS comparable,
  SUM(CASE WHEN ${isNoUsage(noUsage)} THEN runs ELSE 0 END) AS usage_unreported`;

/**
 * The grouping expressions for completions and dispatches. `--by day` in a zone that is not UTC over the range groups
 * by that zone's day, computed from the rows (the `day` column and the rollups hold UTC days): `zoned` then.
 */
export function groupBy(db: SqlDriver, q: ReportQuery): { completion: string; dispatch: string; zoned: boolean } {
  const plain = { completion: GROUP_COLUMN[q.by], dispatch: GROUP_DISPATCH[q.by], zoned: false };
  if (q.by !== 'day' || !q.timeZone) return plain;
  const span = ledgerSpan(db, q.since, q.until);
  const completion = zonedDaySql('ended_at', q.timeZone, span.from, span.to);
  const dispatch = zonedDaySql('at', q.timeZone, span.from, span.to);
  return completion === null || dispatch === null ? plain : { completion, dispatch, zoned: true };
}

/** Whole UTC days come from the rollup; a --since/--until inside a day reads that day's edge from completions. */
function aggregates(
  db: SqlDriver,
  q: ReportQuery,
  group: ReturnType<typeof groupBy>,
  noUsage: readonly string[],
): Aggregates {
  const col = group.completion;
  const ceilDay = (ms: number) => Math.ceil(ms / DAY_MS) * DAY_MS;
  const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
  const fullFrom = q.since == null ? null : ceilDay(q.since);
  const fullTo = q.until == null ? null : floorDay(q.until);
  const out: Aggregates = { groups: [], pairs: [] };
  const raw = (from: number | null, to: number | null) => {
    const w = scopeWhere(q, 'ended_at', from, to);
    append(
      out.groups,
      db
        .prepare(`SELECT ${col} AS g, ${rawMeasures(noUsage)} FROM completions ${w.sql} GROUP BY g`)
        .all<Agg>(...noUsage, ...w.params),
    );
    append(
      out.pairs,
      db
        .prepare(
          `SELECT ${col} AS g, requested_model AS requested, served_model AS served, COUNT(*) AS runs
       FROM completions ${w.sql} GROUP BY g, requested, served`,
        )
        .all<Pair>(...w.params),
    );
  };
  // Zoned days cut across the rollups' UTC days: every row in range is read (an index range scan on ended_at).
  if (group.zoned || (fullFrom !== null && fullTo !== null && fullFrom >= fullTo)) {
    raw(q.since ?? null, q.until ?? null);
    return out;
  }
  if (q.since != null && fullFrom! > q.since) raw(q.since, fullFrom);
  if (q.until != null && fullTo! < q.until) raw(fullTo, q.until);
  const parts = ['runs <> 0'];
  const params: SqlValue[] = [];
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  if (fullFrom !== null) parts.push('day >= ?'), params.push(day(fullFrom));
  if (fullTo !== null) parts.push('day < ?'), params.push(day(fullTo));
  scopeFilters(q, parts, params);
  // Smallest rollup that has the columns: the session rollup lacks project/agent/tier, the global one session/project.
  const table =
    q.by === 'session' && !q.project
      ? 'session_rollup'
      : q.by === 'session' || q.session || q.project
        ? 'completion_rollup'
        : 'completion_rollup_global';
  // Grouped by the bare columns ('' stands for NULL in the rollup, one to one), so an index in that order can stream.
  const from = `FROM ${table} WHERE ${parts.join(' AND ')}`;
  append(
    out.groups,
    db
      .prepare(`SELECT NULLIF(${col}, '') AS g, ${rollupSums(noUsage)} ${from} GROUP BY ${col} HAVING SUM(runs) <> 0`)
      .all<Agg>(...noUsage, ...params),
  );
  append(
    out.pairs,
    db
      .prepare(
        `SELECT NULLIF(${col}, '') AS g, NULLIF(requested_model, '') AS requested, NULLIF(served_model, '') AS served,
       SUM(runs) AS runs ${from} GROUP BY ${col}, requested_model, served_model HAVING SUM(runs) <> 0`,
      )
      .all<Pair>(...params),
  );
  return out;
}

/**
 * Adds `rows` to `into` one by one: `into.push(...rows)` passes every row as an argument, and V8 overflows its stack
 * past a few hundred thousand (a --by session over 400,000 sessions did).
 */
export function append<T>(into: T[], rows: readonly T[]): void {
  for (const r of rows) into.push(r);
}

const money = (pico: bigint | null): Money =>
  pico === null ? { usd: null, pico: null } : { usd: picoToUsd(pico), pico: pico.toString() };

type Acc = Omit<
  ReportRow,
  | 'cost'
  | 'counterfactual'
  | 'savings'
  | 'usageNotReported'
  | 'models'
  | 'correctionsNotHonoured'
  | 'saved'
  | 'multiplier'
  | 'savedByBudget'
  | 'savedEstimatedRuns'
  | 'deniedRetried'
  | 'correctedTo'
  | 'limitDenied'
  | 'stopped'
  | 'asked'
  | 'askedRan'
> & {
  budgetPico: bigint | null;
  estimatedRuns: number;
  retried: number;
  limitDenied: number;
  stopped: number;
  asked: number;
  askedRan: number;
  correctedTo: Map<string, number>;
  mult: { runs: number; min: number; max: number } | null;
  notHonoured: number;
  savedPico: bigint | null;
  costPico: bigint | null;
  cfPico: bigint | null;
  cfCostPico: bigint | null;
  usageUnreported: number;
  pairs: Map<string, { requested: string | null; served: string | null; runs: number; corrected?: number }>;
};

function emptyAcc(group: string | null): Acc {
  return {
    group,
    runs: 0,
    dispatches: 0,
    denied: 0,
    completed: 0,
    pending: 0,
    verified: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    unpricedRuns: 0,
    noUsageRuns: 0,
    comparableRuns: 0,
    costPico: null,
    cfPico: null,
    cfCostPico: null,
    usageUnreported: 0,
    notHonoured: 0,
    corrected: 0,
    savedPico: null,
    savedRuns: 0,
    budgetPico: null,
    estimatedRuns: 0,
    retried: 0,
    limitDenied: 0,
    stopped: 0,
    asked: 0,
    askedRan: 0,
    correctedTo: new Map(),
    pairs: new Map(),
    mult: null,
  };
}

function addMult(into: Acc, m: { runs: number; min: number; max: number } | null): void {
  if (!m || m.runs === 0) return;
  into.mult = into.mult
    ? { runs: into.mult.runs + m.runs, min: Math.min(into.mult.min, m.min), max: Math.max(into.mult.max, m.max) }
    : { ...m };
}

const addBig = (a: bigint | null, b: bigint | null): bigint | null => (a === null ? b : b === null ? a : a + b);

function addPair(
  into: Acc,
  p: { requested: string | null; served: string | null; runs: number; corrected?: number },
): void {
  const k = `${p.requested}\u0000${p.served}`;
  const cur = into.pairs.get(k);
  if (cur) {
    cur.runs += p.runs;
    if (p.corrected) cur.corrected = (cur.corrected ?? 0) + p.corrected;
  } else
    into.pairs.set(k, {
      requested: p.requested,
      served: p.served,
      runs: p.runs,
      ...(p.corrected ? { corrected: p.corrected } : {}),
    });
}

function merge(into: Acc, from: Acc): void {
  into.runs += from.runs;
  into.dispatches += from.dispatches;
  into.denied += from.denied;
  into.completed += from.completed;
  into.pending += from.pending;
  into.verified += from.verified;
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'total'] as const) into.tokens[k] += from.tokens[k];
  into.unpricedRuns += from.unpricedRuns;
  into.noUsageRuns += from.noUsageRuns;
  into.comparableRuns += from.comparableRuns;
  into.costPico = addBig(into.costPico, from.costPico);
  into.cfPico = addBig(into.cfPico, from.cfPico);
  into.cfCostPico = addBig(into.cfCostPico, from.cfCostPico);
  into.usageUnreported += from.usageUnreported;
  into.notHonoured += from.notHonoured;
  into.corrected += from.corrected;
  into.savedPico = addBig(into.savedPico, from.savedPico);
  into.savedRuns += from.savedRuns;
  into.budgetPico = addBig(into.budgetPico, from.budgetPico);
  into.estimatedRuns += from.estimatedRuns;
  into.retried += from.retried;
  into.limitDenied += from.limitDenied;
  into.stopped += from.stopped;
  into.asked += from.asked;
  into.askedRan += from.askedRan;
  for (const [v, n] of from.correctedTo) into.correctedTo.set(v, (into.correctedTo.get(v) ?? 0) + n);
  addMult(into, from.mult);
  for (const p of from.pairs.values()) addPair(into, p);
}

/** Adds one aggregate row; its pico sums arrive as integer text, so they stay exact past 2^53. */
function addAgg(into: Acc, r: Agg): void {
  into.runs += r.runs;
  into.dispatches += r.dispatched;
  into.completed += r.completed ?? 0;
  into.pending += r.pending ?? 0;
  into.verified += r.verified ?? 0;
  into.tokens.input += r.input;
  into.tokens.output += r.output;
  into.tokens.cacheRead += r.cache_read;
  into.tokens.cacheWrite += r.cache_write;
  into.tokens.total += r.input + r.output + r.cache_read + r.cache_write;
  into.unpricedRuns += r.unpriced ?? 0;
  into.noUsageRuns += r.no_usage ?? 0;
  into.comparableRuns += r.comparable ?? 0;
  if (r.priced_runs > 0) into.costPico = addBig(into.costPico, BigInt(r.cost));
  if (r.comparable > 0) {
    into.cfPico = addBig(into.cfPico, BigInt(r.cf));
    into.cfCostPico = addBig(into.cfCostPico, BigInt(r.cf_cost));
  }
  into.usageUnreported += r.usage_unreported ?? 0;
}

function finish(a: Acc): ReportRow {
  const savings = a.cfPico !== null && a.cfCostPico !== null ? a.cfPico - a.cfCostPico : null;
  return {
    group: a.group,
    runs: a.runs,
    dispatches: a.dispatches,
    denied: a.denied,
    completed: a.completed,
    pending: a.pending,
    verified: a.verified,
    models: [...a.pairs.values()].sort(
      (x, y) => y.runs - x.runs || byKey.compare(String(x.requested), String(y.requested)),
    ),
    tokens: a.tokens,
    cost: money(a.costPico),
    unpricedRuns: a.unpricedRuns,
    noUsageRuns: a.noUsageRuns,
    counterfactual: money(a.cfPico),
    savings: money(savings),
    comparableRuns: a.comparableRuns,
    usageNotReported: a.runs > 0 && a.usageUnreported === a.runs,
    correctionsNotHonoured: a.notHonoured,
    corrected: a.corrected,
    saved: money(a.savedPico),
    savedRuns: a.savedRuns,
    savedByBudget: money(a.budgetPico),
    savedEstimatedRuns: a.estimatedRuns,
    deniedRetried: a.retried,
    limitDenied: a.limitDenied,
    stopped: a.stopped,
    asked: a.asked,
    askedRan: a.askedRan,
    correctedTo: [...a.correctedTo]
      .map(([value, runs]) => ({ value, runs }))
      .sort((x, y) => y.runs - x.runs || byKey.compare(x.value, y.value)),
    ...(a.mult ? { multiplier: a.mult } : {}),
  };
}

/**
 * `pricer` prices what tiergate's corrections saved (decision-savings.ts) with the catalog in effect now; without one
 * the corrections are counted and `saved` is null.
 */
export function queryReport(
  db: SqlDriver,
  q: ReportQuery,
  pricer: Pricer | null = null,
  noUsage: readonly string[] = noUsageHarnesses(),
): ReportRow[] & { totals?: ReportRow } {
  const group = groupBy(db, q);
  const aggs = aggregates(db, q, group, noUsage);
  const gd = group.dispatch;
  const wd = scopeWhere(q, 'at', q.since ?? null, q.until ?? null);
  const open = db
    .prepare(
      `SELECT ${gd} AS g, SUM(${RAN}) AS n, SUM(action = 'deny' AND ${RAN}) AS denied,
       SUM(${isNoUsage(noUsage)} AND ${RAN}) AS usage_unreported, SUM(action = 'correct') AS corrected,
       SUM(action = 'deny' AND ${RAN} AND ${RETRIED}) AS retried, SUM(reason = 'limit-denied') AS limit_denied,
       SUM(reason = 'child-stopped') AS stopped, SUM(action = 'ask') AS asked
     FROM dispatches ${wd.sql ? `${wd.sql} AND` : 'WHERE'} completion_id IS NULL GROUP BY g`,
    )
    .all<OpenAgg>(...noUsage, ...wd.params);
  const decided = priceDecisions(correctedRuns(db, q, group.completion), pricer);
  return assembleRows(q.by, {
    ...aggs,
    open,
    ignored: ignoredCorrections(db, q, group.completion),
    decided,
    multipliers: multipliers(db, q, group.completion),
    correctedTo: correctedTo(db, q, group),
    correctedPairs: correctedPairs(db, q, group.completion),
    askedRan: askedRan(db, q, group.completion),
  });
}

/**
 * Asks whose child ran, joined through their decision record (kind ask) like every decision: each dispatch's first run,
 * grouped and filtered like the runs. The asks that never ran are counted with the dispatches that never completed.
 */
function askedRan(db: SqlDriver, q: ReportQuery, col: string): AskedRanAgg[] {
  const w = scopeWhere(q, 'ended_at', q.since ?? null, q.until ?? null);
  return db
    .prepare(
      `SELECT ${col} AS g, COUNT(*) AS n FROM completions
       WHERE followup = 0 AND dispatch_id IN (SELECT dispatch_id FROM decisions WHERE kind = 'ask')${w.sql ? ` AND ${w.sql.slice('WHERE '.length)}` : ''}
       GROUP BY g`,
    )
    .all<AskedRanAgg>(...w.params);
}

/**
 * Every run of a dispatch tiergate corrected, with its decision record (the without-tiergate model's rates at decision
 * time) or, for a dispatch recorded before the record existed, the old estimate's baseline: the model the dispatch
 * named, else the parent's (inherited). Corrections only (their partial index), filtered and grouped like
 * every run of the row; a dispatch's follow-up turns ran on the corrected model too, so they count, once each.
 */
function correctedRuns(db: SqlDriver, q: ReportQuery, col: string): CorrectedRun[] {
  const w = scopeWhere(q, 'ended_at', q.since ?? null, q.until ?? null);
  return db
    .prepare(
      `SELECT x.g AS g, x.harness AS harness, COALESCE(d.requested_model, d.parent_model) AS baseline, x.cost AS cost,
       x.first AS first, x.input AS input, x.output AS output, x.cache_read AS cache_read, x.cache_write_5m AS cache_write_5m,
       x.cache_write_1h AS cache_write_1h, x.reasoning AS reasoning, x.requests AS requests, o.kind AS kind,
       o.without_rates AS rates
     FROM (SELECT ${col} AS g, harness, CAST(cost_pico AS TEXT) AS cost, (followup = 0) AS first, input, output, cache_read,
             cache_write_5m, cache_write_1h, reasoning, requests, dispatch_id
           FROM completions
           WHERE dispatch_id IN (SELECT id FROM dispatches WHERE action = 'correct')${w.sql ? ` AND ${w.sql.slice('WHERE '.length)}` : ''}) x
     JOIN dispatches d ON d.id = x.dispatch_id LEFT JOIN decisions o ON o.dispatch_id = x.dispatch_id`,
    )
    .all<CorrectedRun>(...w.params);
}

/**
 * A dispatch row that is a dispatch: not a stopped child's record (reason child-stopped, runtime/child-stop.ts), which
 * the dispatches table holds beside them, never joined, and the report counts on its own (`stopped`).
 */
export const RAN = "reason IS NOT 'child-stopped'";

/**
 * A denied dispatch retried on a cheaper model: a later decision in the same session (within the hour) that let a
 * child run on another model than the denied one would have. A correlated test on the dispatch row: denials are few.
 */
const RETRIED = `EXISTS (SELECT 1 FROM decisions r JOIN decisions o ON o.dispatch_id = dispatches.id
  WHERE r.harness = dispatches.harness AND r.session_id = dispatches.session_id AND r.dispatch_id <> dispatches.id
    AND r.at >= dispatches.at AND r.at <= dispatches.at + 3600000 AND r.kind NOT IN ('deny', 'budget-deny', 'limit-deny', 'stopped')
    AND r.to_model IS NOT o.without_model)`;

/**
 * What corrections set, per group, each dispatch once: completed ones grouped like their runs, open ones like the
 * dispatches that never completed. From decision records only (older corrections are counted, not named).
 */
function correctedTo(db: SqlDriver, q: ReportQuery, group: ReturnType<typeof groupBy>): CorrectedToAgg[] {
  const kinds = `kind IN ('correct', 'budget-downshift')`;
  const w = scopeWhere(q, 'ended_at', q.since ?? null, q.until ?? null);
  const wd = scopeWhere(q, 'at', q.since ?? null, q.until ?? null);
  const done = db
    .prepare(
      `SELECT ${group.completion} AS g, (SELECT to_value FROM decisions o WHERE o.dispatch_id = completions.dispatch_id) AS value,
         COUNT(*) AS n FROM completions
       WHERE followup = 0 AND dispatch_id IN (SELECT dispatch_id FROM decisions WHERE ${kinds})${w.sql ? ` AND ${w.sql.slice('WHERE '.length)}` : ''}
       GROUP BY g, value`,
    )
    .all<CorrectedToAgg>(...w.params);
  const open = db
    .prepare(
      `SELECT ${group.dispatch} AS g, (SELECT to_value FROM decisions o WHERE o.dispatch_id = dispatches.id) AS value,
         COUNT(*) AS n FROM dispatches
       WHERE completion_id IS NULL AND id IN (SELECT dispatch_id FROM decisions WHERE ${kinds})${wd.sql ? ` AND ${wd.sql.slice('WHERE '.length)}` : ''}
       GROUP BY g, value`,
    )
    .all<CorrectedToAgg>(...wd.params);
  return [...done, ...open];
}

/** Runs per (group, requested, served) whose dispatch tiergate corrected: the chart tells them from mismatches. */
function correctedPairs(db: SqlDriver, q: ReportQuery, col: string): Pair[] {
  const w = scopeWhere(q, 'ended_at', q.since ?? null, q.until ?? null);
  return db
    .prepare(
      `SELECT ${col} AS g, requested_model AS requested, served_model AS served, COUNT(*) AS corrected, 0 AS runs
       FROM completions WHERE dispatch_id IN (SELECT dispatch_id FROM decisions WHERE kind IN ('correct', 'budget-downshift'))${w.sql ? ` AND ${w.sql.slice('WHERE '.length)}` : ''}
       GROUP BY g, requested, served`,
    )
    .all<Pair>(...w.params);
}

/**
 * What a ledger's SQL returns for one report: per-group measures, model pairs, never-completed dispatches, ignored
 * corrections, and (where the source can price them) what the corrections saved.
 */
export type ReportParts = Aggregates & {
  open: OpenAgg[];
  ignored: IgnoredAgg[];
  decided?: DecidedAgg[];
  multipliers?: MultiplierAgg[];
  correctedTo?: CorrectedToAgg[];
  /** Runs per model pair whose dispatch tiergate corrected (`corrected` set, `runs` not counted again). */
  correctedPairs?: Pair[];
  askedRan?: AskedRanAgg[];
};

/**
 * The report's rows and totals from its parts, whichever ledger they came from (this SQLite one, or the team's
 * PostgreSQL one: src/team/report.ts), so every view reads the same contract.
 */
export function assembleRows(by: ReportBy, parts: ReportParts): ReportRow[] & { totals?: ReportRow } {
  const groups = new Map<string, Acc>();
  const acc = (g: string | null) => {
    const k = g ?? '\u0000null';
    let a = groups.get(k);
    if (!a) groups.set(k, (a = emptyAcc(g)));
    return a;
  };
  for (const r of parts.groups) addAgg(acc(r.g), r);
  for (const p of parts.pairs) addPair(acc(p.g), p);
  for (const r of parts.open) {
    const a = acc(r.g);
    a.runs += r.n;
    a.dispatches += r.n;
    a.denied += r.denied ?? 0;
    a.usageUnreported += r.usage_unreported ?? 0;
    a.corrected += r.corrected ?? 0;
    a.retried += r.retried ?? 0;
    a.limitDenied += r.limit_denied ?? 0;
    a.stopped += r.stopped ?? 0;
    a.asked += r.asked ?? 0;
  }
  for (const r of parts.askedRan ?? []) {
    const a = acc(r.g);
    a.asked += r.n;
    a.askedRan += r.n;
  }
  for (const p of parts.correctedPairs ?? []) addPair(acc(p.g), { ...p, runs: 0 });
  for (const r of parts.correctedTo ?? []) {
    const a = acc(r.g);
    const v = r.value ?? '?';
    a.correctedTo.set(v, (a.correctedTo.get(v) ?? 0) + r.n);
  }
  for (const r of parts.ignored) acc(r.g).notHonoured += r.n;
  for (const r of parts.multipliers ?? []) addMult(acc(r.g), { runs: r.n, min: r.lo, max: r.hi });
  for (const r of parts.decided ?? []) {
    const a = acc(r.g);
    a.corrected += r.corrected;
    a.savedPico = addBig(a.savedPico, r.saved);
    a.savedRuns += r.savedRuns;
    a.budgetPico = addBig(a.budgetPico, r.budget ?? null);
    a.estimatedRuns += r.estimated ?? 0;
  }
  const accs = [...groups.values()];
  const total = emptyAcc('(total)');
  for (const a of accs) merge(total, a);
  const rows = accs
    // Days read in order; every other grouping dearest first (sessions too: the expensive ones are what one looks for).
    .sort((x, y) => (by === 'day' ? byKey.compare(String(x.group), String(y.group)) : cmpCost(y, x)))
    .map(finish) as ReportRow[] & { totals?: ReportRow };
  rows.totals = finish(total);
  return rows;
}

/**
 * Corrections the harness did not honour, per group. Not a rollup measure: such rows are rare, so the partial index of
 * ignored dispatches (ledger migration 7) finds them all, and their completions (each dispatch's first run, so a
 * dispatch counts once) are grouped and filtered like every other run of the row.
 */
function ignoredCorrections(db: SqlDriver, q: ReportQuery, col: string): IgnoredAgg[] {
  const w = scopeWhere(q, 'ended_at', q.since ?? null, q.until ?? null);
  return db
    .prepare(
      `SELECT ${col} AS g, COUNT(*) AS n FROM completions
     WHERE id IN (SELECT completion_id FROM dispatches WHERE enforcement = 'ignored')${w.sql ? ` AND ${w.sql.slice('WHERE '.length)}` : ''}
     GROUP BY g`,
    )
    .all<IgnoredAgg>(...w.params);
}

/**
 * Runs billed by request at a multiplier (ledger migration 9), per group: not a rollup measure, since few runs have
 * one (a harness that bills by request); the partial index holds exactly those rows.
 */
function multipliers(db: SqlDriver, q: ReportQuery, col: string): MultiplierAgg[] {
  const w = scopeWhere(q, 'ended_at', q.since ?? null, q.until ?? null);
  return db
    .prepare(
      `SELECT ${col} AS g, COUNT(*) AS n, MIN(multiplier) AS lo, MAX(multiplier) AS hi FROM completions
     WHERE multiplier IS NOT NULL${w.sql ? ` AND ${w.sql.slice('WHERE '.length)}` : ''}
     GROUP BY g`,
    )
    .all<MultiplierAgg>(...w.params);
}

/** A group with no runs: a day of the period nothing ran on (day-fill.ts). */
export const emptyRow = (group: string): ReportRow => finish(emptyAcc(group));

/** True when the ledger holds no run and no dispatch at all: the report says how to get some instead of zeros. */
export function ledgerIsEmpty(db: SqlDriver): boolean {
  const r = db
    .prepare('SELECT EXISTS (SELECT 1 FROM completions) OR EXISTS (SELECT 1 FROM dispatches) AS any')
    .get<{ any: number }>();
  return !r?.any;
}

/** The collator String#localeCompare uses, built once: thousands of sessions sort in a fraction of the time. */
const byKey = new Intl.Collator();

function cmpCost(a: Acc, b: Acc): number {
  const x = a.costPico ?? -1n;
  const y = b.costPico ?? -1n;
  return x === y ? a.runs - b.runs : x < y ? -1 : 1;
}

/**
 * The local ledger's report; `pricer` prices what tiergate's corrections saved (without one, `saved` is null).
 * `wholeUsage: false` skips the scanned-requests total (a full read of that table): the HTML page's per-day pieces.
 */
export function buildReport(
  db: SqlDriver,
  q: ReportQuery,
  now = new Date(),
  pricer: Pricer | null = null,
  opts: { wholeUsage?: boolean } = {},
): Report {
  const rows = queryReport(db, q, pricer);
  const whole = opts.wholeUsage === false ? undefined : wholeUsage(db, q);
  const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
  const filters: ReportFilters = {
    since: iso(q.since),
    until: iso(q.until),
    harness: q.harness ?? null,
    session: q.session ?? null,
    project: q.project ?? null,
    timeZone: q.timeZone ?? 'UTC',
  };
  return {
    format: 'tiergate-report/1',
    generatedAt: now.toISOString(),
    by: q.by,
    filters,
    rows:
      q.by === 'session'
        ? withSessionDetails(db, rows)
        : q.by === 'day' && !ledgerIsEmpty(db)
          ? fillDays(
              rows,
              { since: q.since ?? null, until: q.until ?? null, zone: q.timeZone ?? 'UTC', now: now.getTime() },
              emptyRow,
            )
          : [...rows],
    totals: rows.totals!,
    ...(whole ? { wholeUsage: whole } : {}),
  };
}
