/**
 * `tiergate report --team`: the same report (src/report/query.ts assembles it, so every view and `--json` are the
 * same contract) over every machine's pushed rows, aggregated in PostgreSQL. Whole UTC days come from the rollups
 * (schema.ts: completion_rollup, or session_rollup for --by session); a --since/--until inside a day reads that day's
 * edge from completions (index on ended_at); a --session or --project filter reads completions (by index, or a scan for
 * --project). Only per-group aggregates reach Node, never the rows. Read-only: a role with SELECT on the schema is enough.
 *
 * Runs of a harness that reports no usage (the registry's list: report/query.ts noUsageHarnesses) are counted from the
 * harness column with that list as a parameter, never a harness named in the SQL. `--by session` with a limit ranks the
 * sessions in SQL and builds only the N it keeps (report/limit.ts's order: cost, then runs), totals from a grouping
 * of a few rows: tens of thousands of sessions are never assembled to show fifty.
 */
import { withoutTrailingSlashes } from '../io/text.js';
import type { Harness } from '../contracts/harness.js';
import type { Report, ReportBy, ReportFilters, ReportRow } from '../contracts/report.js';
import type { DecidedAgg } from '../report/decision-savings.js';
import { limitRows } from '../report/limit.js';
import {
  assembleRows,
  emptyRow,
  noUsageHarnesses,
  type Agg,
  type IgnoredAgg,
  type CorrectedToAgg,
  type AskedRanAgg,
  type OpenAgg,
  type Pair,
  type ReportParts,
} from '../report/query.js';
import { fillDays } from '../report/day-fill.js';
import type { TeamClient } from './pg.js';
import { runRow, type RunFields, type RunRow } from '../report/run-rows.js';
import { ROLLUP_MEASURES, TEAM_SCHEMA } from './schema.js';

export type TeamReportQuery = {
  by: ReportBy;
  since?: number | null;
  until?: number | null;
  harness?: Harness | null;
  session?: string | null;
  project?: string | null;
  user?: string | null;
  origin?: string | null;
  /** The N most expensive rows, as `report --limit` keeps them (report/limit.ts); null, absent or 0: every row. */
  limit?: number | null;
};

/** A query narrowed to some sessions (null: the runs with none), for the rows `--by session` keeps. */
type Scoped = TeamReportQuery & { sessions?: (string | null)[] };

const DAY_MS = 86_400_000;
const S = TEAM_SCHEMA;

/** Grouping column in completions; the rollups use the same names except agent (completions.subagent_type). */
const RAW_GROUP: Record<ReportBy, string> = {
  session: 'session_id',
  agent: 'subagent_type',
  tier: 'tier',
  model: 'served_model',
  harness: 'harness',
  day: "to_char(day, 'YYYY-MM-DD')",
  user: 'user_name',
};
const ROLLUP_GROUP: Record<ReportBy, string> = {
  session: 'session_id',
  agent: 'agent',
  tier: 'tier',
  model: 'served_model',
  harness: 'harness',
  day: "to_char(day, 'YYYY-MM-DD')",
  user: 'user_name',
};
const OPEN_GROUP: Record<ReportBy, string> = {
  session: 'session_id',
  agent: 'COALESCE(subagent_type, requested_agent)',
  tier: 'tier',
  model: 'NULL::text',
  harness: 'harness',
  day: "to_char(day, 'YYYY-MM-DD')",
  user: 'user_name',
};

/**
 * Per (group, model pair): each measure under its rollup column's name, from completions rows (raw) or from a rollup.
 * GROUPED then sums them per group, so one scan gives both a group's measures and every pair of it.
 */
const rawPairMeasures = (noUsage: string) => `COUNT(*) AS runs, COUNT(*) FILTER (WHERE dispatched) AS dispatched,
  COUNT(*) FILTER (WHERE status = 'ok') AS completed, COUNT(*) FILTER (WHERE status = 'pending') AS pending,
  COUNT(*) FILTER (WHERE verified) AS verified, COALESCE(SUM(input), 0) AS input, COALESCE(SUM(output), 0) AS output,
  COALESCE(SUM(cache_read), 0) AS cache_read, COALESCE(SUM(COALESCE(cache_write_5m, 0) + COALESCE(cache_write_1h, 0)), 0) AS cache_write,
  COALESCE(SUM(cost_pico), 0) AS cost_pico, COUNT(cost_pico) AS priced_runs,
  COUNT(*) FILTER (WHERE cost_pico IS NULL AND input IS NOT NULL) AS unpriced, COUNT(*) FILTER (WHERE input IS NULL) AS no_usage,
  COALESCE(SUM(counterfactual_pico) FILTER (WHERE counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL), 0) AS cf_pico,
  COALESCE(SUM(cost_pico) FILTER (WHERE counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL), 0) AS cf_cost_pico,
  COUNT(*) FILTER (WHERE counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL) AS comparable,
  COUNT(*) FILTER (WHERE harness = ANY(${noUsage})) AS usage_unreported, COUNT(*) FILTER (WHERE not_honoured) AS not_honoured,
  COUNT(*) FILTER (WHERE corrected AND NOT followup) AS corrected, COALESCE(SUM(saved_pico), 0) AS saved_pico,
  COUNT(saved_pico) AS saved_runs`;

/** The rollups' sums; runs without usage by their harness key (`noUsage`: the placeholder of the registry's list). */
const rollupPairMeasures = (noUsage: string) =>
  `${ROLLUP_MEASURES.map((m) => `SUM(${m}) AS ${m}`).join(', ')}, SUM(runs) FILTER (WHERE harness = ANY(${noUsage})) AS usage_unreported`;

/** A group's sums of (group, pair) measures (`usageUnreported`: its runs without usage). Counts come back as float8 (exact to 2^53, and a JS number without parsing); money as integer text. */
const grouped_ = (
  usageUnreported: string,
) => `SUM(runs)::float8 AS runs, SUM(dispatched)::float8 AS dispatched, SUM(completed)::float8 AS completed,
  SUM(pending)::float8 AS pending, SUM(verified)::float8 AS verified, SUM(input)::float8 AS input, SUM(output)::float8 AS output,
  SUM(cache_read)::float8 AS cache_read, SUM(cache_write)::float8 AS cache_write, SUM(cost_pico)::text AS cost,
  SUM(priced_runs)::float8 AS priced_runs, SUM(unpriced)::float8 AS unpriced, SUM(no_usage)::float8 AS no_usage,
  SUM(cf_pico)::text AS cf, SUM(cf_cost_pico)::text AS cf_cost, SUM(comparable)::float8 AS comparable,
  (${usageUnreported})::float8 AS usage_unreported, SUM(not_honoured)::float8 AS not_honoured, SUM(corrected)::float8 AS corrected,
  SUM(saved_pico)::text AS saved, SUM(saved_runs)::float8 AS saved_runs`;
/** A group's pairs as one JSON array (requested, served, runs): one row per group comes back, not one per pair. */
const PAIRS_JSON = 'json_agg(json_build_array(requested, served, runs::float8)) FILTER (WHERE runs <> 0) AS pairs';

type Row = Agg & {
  not_honoured: number;
  corrected: number;
  saved: string;
  saved_runs: number;
  pairs?: [string | null, string | null, number][] | null;
};

/** WHERE parts and their parameters, numbered from $1 as pushed. */
class Where {
  readonly parts: string[] = [];
  readonly params: unknown[] = [];
  add(sql: (p: (v: unknown) => string) => string): void {
    this.parts.push(sql((v) => this.param(v)));
  }
  /** A parameter used outside the WHERE clause: its placeholder. */
  param(v: unknown): string {
    this.params.push(v);
    return `$${this.params.length}`;
  }
  get sql(): string {
    return this.parts.length ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}

/**
 * The filters every table shares (harness, session, project, person, origin, the kept sessions). `rollup`: NULL keys
 * are stored as '' there.
 */
function filters(q: Scoped, w: Where, opts: { session: boolean; project: boolean; rollup?: boolean }): void {
  if (q.sessions) {
    const ids = q.sessions.filter((id): id is string => id !== null);
    const none = ids.length < q.sessions.length;
    if (opts.rollup) w.add((p) => `session_id = ANY(${p(none ? [...ids, ''] : ids)}::text[])`);
    else w.add((p) => `(session_id = ANY(${p(ids)}::text[])${none ? ' OR session_id IS NULL' : ''})`);
  }
  if (q.harness) w.add((p) => `harness = ${p(q.harness)}`);
  if (q.user) w.add((p) => `user_name = ${p(q.user)}`);
  if (q.origin) w.add((p) => `origin = ${p(q.origin)}`);
  if (opts.session && q.session) w.add((p) => `session_id = ${p(q.session)}`);
  if (opts.project && q.project) {
    const dir = withoutTrailingSlashes(q.project);
    w.add((p) => `(project = ${p(dir)} OR left(project, ${p(dir.length + 1)}) = ${p(`${dir}/`)})`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);

/** Measures per (group, model pair) in `inner`, summed per group in the same query, the pairs as JSON. */
async function grouped(db: TeamClient, inner: string, params: unknown[], out: Row[], pairs: Pair[]): Promise<void> {
  for (const r of await db.query<Row>(
    `WITH p AS (${inner}) SELECT g, ${grouped_('SUM(usage_unreported)')}, ${PAIRS_JSON} FROM p GROUP BY g HAVING SUM(runs) <> 0`,
    params,
  )) {
    out.push(r);
    for (const [requested, served, runs] of r.pairs ?? []) pairs.push({ g: r.g, requested, served, runs });
  }
}

/** The registry's harnesses that report no usage, bound as one text[] parameter. */
const NO_USAGE = noUsageHarnesses();

async function rawParts(
  db: TeamClient,
  q: Scoped,
  from: number | null,
  to: number | null,
  out: Row[],
  pairs: Pair[],
): Promise<void> {
  const w = new Where();
  const noUsage = w.param(NO_USAGE);
  if (from !== null) w.add((p) => `ended_at >= ${p(iso(from))}::timestamptz`);
  if (to !== null) w.add((p) => `ended_at < ${p(iso(to))}::timestamptz`);
  filters(q, w, { session: true, project: true });
  await grouped(
    db,
    `SELECT ${RAW_GROUP[q.by]} AS g, requested_model AS requested, served_model AS served, ${rawPairMeasures(noUsage)}
    FROM ${S}.completions ${w.sql} GROUP BY 1, 2, 3`,
    w.params,
    out,
    pairs,
  );
}

async function rollupParts(
  db: TeamClient,
  q: Scoped,
  fromDay: number | null,
  toDay: number | null,
  out: Row[],
  pairs: Pair[],
  table: Rollup,
): Promise<void> {
  const w = new Where();
  const noUsage = w.param(NO_USAGE);
  if (fromDay !== null) w.add((p) => `day >= ${p(day(fromDay))}::date`);
  if (toDay !== null) w.add((p) => `day < ${p(day(toDay))}::date`);
  filters(q, w, { session: false, project: false, rollup: true });
  // Grouped by the bare columns ('' stands for NULL in the rollups, one to one).
  const col = q.by === 'day' ? 'day' : ROLLUP_GROUP[q.by];
  const g = q.by === 'day' ? "to_char(day, 'YYYY-MM-DD')" : `NULLIF(${col}, '')`;
  if (q.by === 'session') {
    // Tens of thousands of sessions with their pairs: summing every measure per (session, pair) first would mean
    // hundreds of thousands of groups. Measures per session, and the pairs' runs apart (as rows: json_agg was slower).
    for (const r of await db.query<Row>(
      `SELECT ${g} AS g, ${grouped_(`SUM(runs) FILTER (WHERE harness = ANY(${noUsage}))`)} FROM ${S}.${table} ${w.sql}
       GROUP BY ${col} HAVING SUM(runs) <> 0`,
      w.params,
    )) {
      out.push(r);
    }
    const pw = new Where();
    if (fromDay !== null) pw.add((p) => `day >= ${p(day(fromDay))}::date`);
    if (toDay !== null) pw.add((p) => `day < ${p(day(toDay))}::date`);
    filters(q, pw, { session: false, project: false, rollup: true });
    for (const p of await db.query<Pair>(
      `SELECT ${g} AS g, NULLIF(requested_model, '') AS requested, NULLIF(served_model, '') AS served,
        SUM(runs)::float8 AS runs FROM ${S}.${table} ${pw.sql} GROUP BY ${col}, requested_model, served_model HAVING SUM(runs) <> 0`,
      pw.params,
    )) {
      pairs.push(p);
    }
    return;
  }
  await grouped(
    db,
    `SELECT ${g} AS g, NULLIF(requested_model, '') AS requested, NULLIF(served_model, '') AS served, ${rollupPairMeasures(noUsage)}
    FROM ${S}.${table} ${w.sql} GROUP BY ${col}, requested_model, served_model`,
    w.params,
    out,
    pairs,
  );
}

/** A dispatch row that is no stopped child's record (those are counted apart, query.ts RAN), in PostgreSQL. */
const RAN = "reason IS DISTINCT FROM 'child-stopped'";

/** Dispatches that never completed (denied, or their child still running), grouped like the runs. */
async function openDispatches(db: TeamClient, q: Scoped): Promise<OpenAgg[]> {
  const w = new Where();
  const noUsage = w.param(NO_USAGE);
  w.add(() => 'NOT completed');
  if (q.since != null) w.add((p) => `at >= ${p(iso(q.since!))}::timestamptz`);
  if (q.until != null) w.add((p) => `at < ${p(iso(q.until!))}::timestamptz`);
  filters(q, w, { session: true, project: true });
  return db.query<OpenAgg>(
    `SELECT ${OPEN_GROUP[q.by]} AS g, COUNT(*) FILTER (WHERE ${RAN})::float8 AS n,
       COUNT(*) FILTER (WHERE action = 'deny' AND ${RAN})::float8 AS denied,
       COUNT(*) FILTER (WHERE harness = ANY(${noUsage}) AND ${RAN})::float8 AS usage_unreported,
       COUNT(*) FILTER (WHERE action = 'correct')::float8 AS corrected,
       COUNT(*) FILTER (WHERE reason = 'limit-denied')::float8 AS limit_denied,
       COUNT(*) FILTER (WHERE reason = 'child-stopped')::float8 AS stopped,
       COUNT(*) FILTER (WHERE action = 'ask')::float8 AS asked
     FROM ${S}.dispatches ${w.sql} GROUP BY 1`,
    w.params,
  );
}

/**
 * Where a query's runs come from: whole UTC days from a rollup, a --since/--until inside a day from that day's edge in
 * completions, and everything from completions for --session or --project (or a range within one day).
 */
function sources(q: TeamReportQuery): {
  raw: [number | null, number | null][];
  rollup: [number | null, number | null] | null;
} {
  if (q.session || q.project) return { raw: [[q.since ?? null, q.until ?? null]], rollup: null };
  const fullFrom = q.since == null ? null : Math.ceil(q.since / DAY_MS) * DAY_MS;
  const fullTo = q.until == null ? null : Math.floor(q.until / DAY_MS) * DAY_MS;
  if (fullFrom !== null && fullTo !== null && fullFrom >= fullTo) return { raw: [[q.since!, q.until!]], rollup: null };
  const raw: [number, number][] = [];
  if (q.since != null && fullFrom! > q.since) raw.push([q.since, fullFrom!]);
  if (q.until != null && fullTo! < q.until) raw.push([fullTo!, q.until]);
  return { raw, rollup: [fullFrom, fullTo] };
}

/** A rollup reports read: the session one for --by session (and for the totals of a limited --by session). */
type Rollup = 'completion_rollup' | 'session_rollup';

export async function teamReportParts(
  db: TeamClient,
  q: Scoped,
  table: Rollup = q.by === 'session' ? 'session_rollup' : 'completion_rollup',
): Promise<ReportParts> {
  const groups: Row[] = [];
  const pairs: Pair[] = [];
  const from = sources(q);
  for (const [a, b] of from.raw) await rawParts(db, q, a, b, groups, pairs);
  if (from.rollup) await rollupParts(db, q, from.rollup[0], from.rollup[1], groups, pairs, table);
  const open = await openDispatches(db, q);
  const record = await decisionParts(db, q);
  const ran = await askedRan(db, q);
  const ignored: IgnoredAgg[] = groups.filter((r) => r.not_honoured > 0).map((r) => ({ g: r.g, n: r.not_honoured }));
  const decided: DecidedAgg[] = groups
    .filter((r) => r.corrected > 0 || r.saved_runs > 0)
    .map((r) => ({
      g: r.g,
      corrected: r.corrected,
      saved: r.saved_runs > 0 ? BigInt(r.saved) : null,
      savedRuns: r.saved_runs,
    }));
  for (const e of record.estimated) decided.push({ g: e.g, corrected: 0, saved: null, savedRuns: 0, estimated: e.n });
  return { groups, pairs, open, ignored, decided, correctedTo: record.correctedTo, askedRan: ran };
}

/**
 * Asks whose child ran (the person approved), as the local report counts them (report/query.ts): each dispatch's first
 * run, grouped and filtered like the runs, its pushed dispatch an ask joined to it (completion_key). Asks are few.
 */
async function askedRan(db: TeamClient, q: Scoped): Promise<AskedRanAgg[]> {
  const w = new Where();
  w.add(() => 'NOT followup');
  if (q.since != null) w.add((p) => `ended_at >= ${p(iso(q.since!))}::timestamptz`);
  if (q.until != null) w.add((p) => `ended_at < ${p(iso(q.until!))}::timestamptz`);
  filters(q, w, { session: true, project: true });
  w.add(
    () =>
      `EXISTS (SELECT 1 FROM ${S}.dispatches d WHERE d.origin = c.origin AND d.completion_key = c.key AND d.action = 'ask')`,
  );
  return db.query<AskedRanAgg>(
    `SELECT ${RAW_GROUP[q.by]} AS g, COUNT(*)::float8 AS n FROM ${S}.completions c ${w.sql} GROUP BY 1`,
    w.params,
  );
}

/**
 * The decision record's parts of a team report (team migration 3): what the corrections set, each dispatch once
 * (completed ones grouped like their runs, open ones like the dispatches), and the runs whose saving is the old
 * estimate (`saved_basis` not 'recorded': rows pushed before the record have none). From the tables, not the rollups: corrections are few. Rows pushed before the record carry NULLs.
 */
async function decisionParts(
  db: TeamClient,
  q: Scoped,
): Promise<{ correctedTo: CorrectedToAgg[]; estimated: { g: string | null; n: number }[] }> {
  const w = new Where();
  w.add(() => 'corrected AND NOT followup');
  if (q.since != null) w.add((p) => `ended_at >= ${p(iso(q.since!))}::timestamptz`);
  if (q.until != null) w.add((p) => `ended_at < ${p(iso(q.until!))}::timestamptz`);
  filters(q, w, { session: true, project: true });
  const done = await db.query<CorrectedToAgg & { estimated: number }>(
    `SELECT ${RAW_GROUP[q.by]} AS g, corrected_to AS value, COUNT(*)::float8 AS n,
       COUNT(*) FILTER (WHERE saved_pico IS NOT NULL AND saved_basis IS DISTINCT FROM 'recorded')::float8 AS estimated
     FROM ${S}.completions ${w.sql} GROUP BY 1, 2`,
    w.params,
  );
  const wd = new Where();
  wd.add(() => "NOT completed AND decision IN ('correct', 'budget-downshift')");
  if (q.since != null) wd.add((p) => `at >= ${p(iso(q.since!))}::timestamptz`);
  if (q.until != null) wd.add((p) => `at < ${p(iso(q.until!))}::timestamptz`);
  filters(q, wd, { session: true, project: true });
  const open = await db.query<CorrectedToAgg>(
    `SELECT ${OPEN_GROUP[q.by]} AS g, to_value AS value, COUNT(*)::float8 AS n FROM ${S}.dispatches ${wd.sql} GROUP BY 1, 2`,
    wd.params,
  );
  return {
    correctedTo: [...done.filter((r) => r.value !== null), ...open],
    estimated: done.filter((r) => r.estimated > 0).map((r) => ({ g: r.g, n: r.estimated })),
  };
}

/**
 * The `limit` most expensive sessions, ranked in SQL as report/limit.ts ranks rows (cost, a session with no priced run
 * below every priced one, then runs; ties by id), from the same sources the report sums; and how many sessions there
 * are in all.
 */
async function topSessions(
  db: TeamClient,
  q: TeamReportQuery,
  limit: number,
): Promise<{ ids: (string | null)[]; groups: number }> {
  const w = new Where();
  const from = sources(q);
  const part: string[] = [];
  /** The shared filters as SQL over `w`'s parameters (`rollup`: as the rollup stores NULL keys). */
  const scope = (rollup: boolean): string[] => {
    const f = new Where();
    filters(q, f, { session: !rollup, project: !rollup, rollup });
    return f.parts.map((sql) => renumber(sql, f.params, w));
  };
  const where = (conditions: string[]) => (conditions.length ? `WHERE ${conditions.join(' AND ')}` : '');
  if (from.rollup) {
    const [a, b] = from.rollup;
    const conditions = [
      ...(a === null ? [] : [`day >= ${w.param(day(a))}::date`]),
      ...(b === null ? [] : [`day < ${w.param(day(b))}::date`]),
      ...scope(true),
    ];
    part.push(`SELECT NULLIF(session_id, '') AS g, SUM(cost_pico) AS cost, SUM(priced_runs) AS priced, SUM(runs) AS runs
      FROM ${S}.session_rollup ${where(conditions)} GROUP BY session_id HAVING SUM(runs) <> 0`);
  }
  for (const [a, b] of from.raw) {
    const conditions = [
      ...(a === null ? [] : [`ended_at >= ${w.param(iso(a))}::timestamptz`]),
      ...(b === null ? [] : [`ended_at < ${w.param(iso(b))}::timestamptz`]),
      ...scope(false),
    ];
    part.push(`SELECT session_id AS g, COALESCE(SUM(cost_pico), 0) AS cost, COUNT(cost_pico) AS priced, COUNT(*) AS runs
      FROM ${S}.completions ${where(conditions)} GROUP BY session_id`);
  }
  const open = [
    'NOT completed',
    ...(q.since == null ? [] : [`at >= ${w.param(iso(q.since))}::timestamptz`]),
    ...(q.until == null ? [] : [`at < ${w.param(iso(q.until))}::timestamptz`]),
    ...scope(false),
  ];
  part.push(`SELECT session_id AS g, 0 AS cost, 0 AS priced, COUNT(*) AS runs
      FROM ${S}.dispatches ${where(open)} GROUP BY session_id`);
  const rows = await db.query<{ g: string | null; groups: number }>(
    `WITH s AS (${part.join('\n    UNION ALL ')})
    SELECT g, (COUNT(*) OVER ())::float8 AS groups FROM s GROUP BY g HAVING SUM(runs) <> 0
    ORDER BY CASE WHEN SUM(priced) > 0 THEN SUM(cost) ELSE -1 END DESC, SUM(runs) DESC, g LIMIT ${w.param(limit)}`,
    w.params,
  );
  return { ids: rows.map((r) => r.g), groups: rows[0]?.groups ?? 0 };
}

/** A WHERE part built with its own parameters, renumbered into `into`'s. */
function renumber(sql: string, params: unknown[], into: Where): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => into.param(params[Number(n) - 1]));
}

/**
 * `--by session`: each session's project and last activity, from the sessions the pushes keep (schema.ts): every
 * session in the person/machine/harness scope (or the kept ones) in one query, not a list of tens of thousands of ids.
 */
async function sessionDetails(db: TeamClient, rows: ReportRow[], q: Scoped): Promise<ReportRow[]> {
  if (rows.length === 0) return rows;
  const w = new Where();
  filters({ ...q, project: null }, w, { session: true, project: false });
  const found = new Map<string, { project: string | null; last: Date }>();
  for (const s of await db.query<{ id: string; project: string | null; last: Date }>(
    `SELECT session_id AS id, MAX(project) AS project, MAX(last_at) AS last FROM ${S}.sessions ${w.sql} GROUP BY session_id`,
    w.params,
  ))
    found.set(s.id, s);
  return rows.map((r) => {
    const s = r.group === null ? undefined : found.get(r.group);
    return { ...r, project: s?.project ?? null, lastActivity: s ? new Date(s.last).toISOString() : null };
  });
}

export async function buildTeamReport(db: TeamClient, q: TeamReportQuery, now = new Date()): Promise<Report> {
  // One snapshot: a push committing between the queries cannot make the parts disagree.
  return db.transaction(async () => teamReport(db, q, now), { readOnly: true });
}

/**
 * One team report, inside the caller's snapshot (the HTML page builds several in one). With a limit, the rows are
 * the `limit` most expensive (report/limit.ts), and `--by session` builds only those.
 */
export async function teamReport(db: TeamClient, q: TeamReportQuery, now = new Date()): Promise<Report> {
  const limit = q.limit ?? 0;
  if (q.by === 'session' && limit > 0 && !q.session && !q.project) {
    const top = await topSessions(db, q, limit);
    const kept: Scoped = { ...q, sessions: top.ids };
    const rows = assembleRows('session', await teamReportParts(db, kept));
    // The totals cover every session: the same sums grouped by harness (a few rows) from the same rollup.
    const totals = assembleRows('harness', await teamReportParts(db, { ...q, by: 'harness' }, 'session_rollup'))
      .totals!;
    const report = teamReportFrom(q, { groups: [], pairs: [], open: [], ignored: [] }, now);
    return {
      ...report,
      rows: await sessionDetails(db, [...rows], kept),
      totals,
      omittedRows: Math.max(0, top.groups - top.ids.length),
    };
  }
  const report = teamReportFrom(q, await teamReportParts(db, q), now);
  const full = q.by === 'session' ? { ...report, rows: await sessionDetails(db, report.rows, q) } : report;
  return limit > 0 || q.limit === 0 ? limitRows(full, limit) : full;
}

/**
 * The report from its parts. Days are UTC days (the rollups'), whatever zone the local report would use; requests
 * (parents' usage) are not pushed, so there is no `wholeUsage`.
 */
export function teamReportFrom(q: TeamReportQuery, parts: ReportParts, now = new Date()): Report {
  const rows = assembleRows(q.by, parts);
  const isoOf = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
  const filters: ReportFilters = {
    since: isoOf(q.since),
    until: isoOf(q.until),
    harness: q.harness ?? null,
    session: q.session ?? null,
    project: q.project ?? null,
    user: q.user ?? null,
    origin: q.origin ?? null,
    timeZone: 'UTC',
  };
  return {
    format: 'tiergate-report/1',
    generatedAt: now.toISOString(),
    by: q.by,
    source: 'team',
    filters,
    // A timeline without holes, as the local report's (report/day-fill.ts), in the team ledger's UTC days.
    rows:
      q.by === 'day' && (rows.length > 0 || q.since != null || q.until != null)
        ? fillDays(rows, { since: q.since ?? null, until: q.until ?? null, zone: 'UTC', now: now.getTime() }, emptyRow)
        : [...rows],
    totals: rows.totals!,
  };
}

/**
 * `report --team --csv`: one row per run, as the local ledger's (report/run-rows.ts), from the pushed tables: every
 * completion in range and every dispatch that never completed, with the same filters and time basis as the report.
 */
export async function teamRuns(db: TeamClient, q: Scoped): Promise<RunRow[]> {
  const cw = new Where();
  if (q.since != null) cw.add((p) => `ended_at >= ${p(iso(q.since!))}::timestamptz`);
  if (q.until != null) cw.add((p) => `ended_at < ${p(iso(q.until!))}::timestamptz`);
  filters(q, cw, { session: true, project: true });
  const done = await db.query<TeamRun>(
    `SELECT c.g AS g, c.harness, c.session_id, c.subagent_type AS agent, c.requested_model AS requested,
       c.served_model AS served, c.corrected_to, d.decision, d.action, d.join_method,
       CASE WHEN NOT c.followup THEN d.enforcement END AS enforcement, c.status,
       (extract(epoch FROM c.ended_at) * 1000)::float8 AS t, c.input::float8 AS input, c.output::float8 AS output,
       c.cache_read::float8 AS cache_read, (COALESCE(c.cache_write_5m, 0) + COALESCE(c.cache_write_1h, 0))::float8 AS cache_write,
       c.cost_pico::text AS cost, (c.counterfactual_pico - c.cost_pico)::text AS vs_parent, c.saved_pico::text AS saved,
       c.saved_basis
     FROM (SELECT *, ${RAW_GROUP[q.by]} AS g FROM ${S}.completions ${cw.sql}) c
     LEFT JOIN ${S}.dispatches d ON d.origin = c.origin AND d.completion_key = c.key
     ORDER BY c.ended_at`,
    cw.params,
  );
  const wd = new Where();
  wd.add(() => 'NOT completed');
  if (q.since != null) wd.add((p) => `at >= ${p(iso(q.since!))}::timestamptz`);
  if (q.until != null) wd.add((p) => `at < ${p(iso(q.until!))}::timestamptz`);
  filters(q, wd, { session: true, project: true });
  const open = await db.query<TeamRun>(
    `SELECT ${OPEN_GROUP[q.by]} AS g, harness, session_id, COALESCE(subagent_type, requested_agent) AS agent,
       COALESCE(without_model, requested_model) AS requested, NULL AS served,
       CASE WHEN action = 'correct' THEN to_value END AS corrected_to, decision, action, NULL AS join_method, enforcement,
       CASE WHEN reason = 'child-stopped' THEN 'stopped' WHEN action = 'deny' THEN 'denied' WHEN action = 'ask' THEN 'asked'
         WHEN at < now() - interval '7 days' THEN 'lost' ELSE 'open' END AS status,
       (extract(epoch FROM at) * 1000)::float8 AS t,
       NULL::float8 AS input, NULL::float8 AS output, NULL::float8 AS cache_read, NULL::float8 AS cache_write,
       NULL::text AS cost, NULL::text AS vs_parent, NULL::text AS saved, NULL::text AS saved_basis
     FROM ${S}.dispatches ${wd.sql} ORDER BY at`,
    wd.params,
  );
  const pico = (t: string | null) => (t === null ? null : BigInt(t));
  return [...done, ...open]
    .sort((a, b) => a.t - b.t)
    .map((r) => runRow({ ...r, cost: pico(r.cost), vs_parent: pico(r.vs_parent), saved: pico(r.saved) }));
}

/** A run as PostgreSQL returns it: RunFields with money as integer text. */
type TeamRun = Omit<RunFields, 'cost' | 'vs_parent' | 'saved'> & {
  cost: string | null;
  vs_parent: string | null;
  saved: string | null;
};
