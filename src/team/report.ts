/**
 * `tiergate report --team`: the same report (src/report/query.ts assembles it, so every view and `--json` are the
 * same contract) over every machine's pushed rows, aggregated in PostgreSQL. Whole UTC days come from the rollups
 * (schema.ts: completion_rollup, or session_rollup for --by session); a --since/--until inside a day reads that day's
 * edge from completions (index on ended_at); a --session or --project filter reads completions (by index, or a scan for
 * --project). Only per-group aggregates reach Node, never the rows. Read-only: a role with SELECT on the schema is enough.
 */
import type { Harness } from '../contracts/harness.js';
import type { Report, ReportBy, ReportFilters, ReportRow } from '../contracts/report.js';
import type { DecidedAgg } from '../report/decision-savings.js';
import { assembleRows, type Agg, type IgnoredAgg, type OpenAgg, type Pair, type ReportParts } from '../report/query.js';
import type { TeamClient } from './pg.js';
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
};

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
const RAW_PAIR_MEASURES = `COUNT(*) AS runs, COUNT(*) FILTER (WHERE dispatched) AS dispatched,
  COUNT(*) FILTER (WHERE status = 'ok') AS completed, COUNT(*) FILTER (WHERE status = 'pending') AS pending,
  COUNT(*) FILTER (WHERE verified) AS verified, COALESCE(SUM(input), 0) AS input, COALESCE(SUM(output), 0) AS output,
  COALESCE(SUM(cache_read), 0) AS cache_read, COALESCE(SUM(COALESCE(cache_write_5m, 0) + COALESCE(cache_write_1h, 0)), 0) AS cache_write,
  COALESCE(SUM(cost_pico), 0) AS cost_pico, COUNT(cost_pico) AS priced_runs,
  COUNT(*) FILTER (WHERE cost_pico IS NULL AND input IS NOT NULL) AS unpriced, COUNT(*) FILTER (WHERE input IS NULL) AS no_usage,
  COALESCE(SUM(counterfactual_pico) FILTER (WHERE counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL), 0) AS cf_pico,
  COALESCE(SUM(cost_pico) FILTER (WHERE counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL), 0) AS cf_cost_pico,
  COUNT(*) FILTER (WHERE counterfactual_pico IS NOT NULL AND cost_pico IS NOT NULL) AS comparable,
  COUNT(*) FILTER (WHERE harness = 'cursor') AS cursor_runs, COUNT(*) FILTER (WHERE not_honoured) AS not_honoured,
  COUNT(*) FILTER (WHERE corrected AND NOT followup) AS corrected, COALESCE(SUM(saved_pico), 0) AS saved_pico,
  COUNT(saved_pico) AS saved_runs`;

const ROLLUP_PAIR_MEASURES = ROLLUP_MEASURES.map((m) => `SUM(${m}) AS ${m}`).join(', ');

/** Counts come back as float8 (exact to 2^53, and a JS number without parsing); money as integer text. */
const GROUPED = `SUM(runs)::float8 AS runs, SUM(dispatched)::float8 AS dispatched, SUM(completed)::float8 AS completed,
  SUM(pending)::float8 AS pending, SUM(verified)::float8 AS verified, SUM(input)::float8 AS input, SUM(output)::float8 AS output,
  SUM(cache_read)::float8 AS cache_read, SUM(cache_write)::float8 AS cache_write, SUM(cost_pico)::text AS cost,
  SUM(priced_runs)::float8 AS priced_runs, SUM(unpriced)::float8 AS unpriced, SUM(no_usage)::float8 AS no_usage,
  SUM(cf_pico)::text AS cf, SUM(cf_cost_pico)::text AS cf_cost, SUM(comparable)::float8 AS comparable,
  SUM(cursor_runs)::float8 AS cursor_runs, SUM(not_honoured)::float8 AS not_honoured, SUM(corrected)::float8 AS corrected,
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
    this.parts.push(sql((v) => (this.params.push(v), `$${this.params.length}`)));
  }
  get sql(): string {
    return this.parts.length ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}

/** The filters every table shares (harness, session, project, person, origin). */
function filters(q: TeamReportQuery, w: Where, opts: { session: boolean; project: boolean }): void {
  if (q.harness) w.add((p) => `harness = ${p(q.harness)}`);
  if (q.user) w.add((p) => `user_name = ${p(q.user)}`);
  if (q.origin) w.add((p) => `origin = ${p(q.origin)}`);
  if (opts.session && q.session) w.add((p) => `session_id = ${p(q.session)}`);
  if (opts.project && q.project) {
    const dir = q.project.replace(/\/+$/, '');
    w.add((p) => `(project = ${p(dir)} OR left(project, ${p(dir.length + 1)}) = ${p(`${dir}/`)})`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);

/** Measures per (group, model pair) in `inner`, summed per group in the same query, the pairs as JSON. */
async function grouped(db: TeamClient, inner: string, params: unknown[], out: Row[], pairs: Pair[]): Promise<void> {
  for (const r of await db.query<Row>(
    `WITH p AS (${inner}) SELECT g, ${GROUPED}, ${PAIRS_JSON} FROM p GROUP BY g HAVING SUM(runs) <> 0`,
    params,
  )) {
    out.push(r);
    for (const [requested, served, runs] of r.pairs ?? []) pairs.push({ g: r.g, requested, served, runs });
  }
}

async function rawParts(
  db: TeamClient,
  q: TeamReportQuery,
  from: number | null,
  to: number | null,
  out: Row[],
  pairs: Pair[],
): Promise<void> {
  const w = new Where();
  if (from !== null) w.add((p) => `ended_at >= ${p(iso(from))}::timestamptz`);
  if (to !== null) w.add((p) => `ended_at < ${p(iso(to))}::timestamptz`);
  filters(q, w, { session: true, project: true });
  await grouped(
    db,
    `SELECT ${RAW_GROUP[q.by]} AS g, requested_model AS requested, served_model AS served, ${RAW_PAIR_MEASURES}
    FROM ${S}.completions ${w.sql} GROUP BY 1, 2, 3`,
    w.params,
    out,
    pairs,
  );
}

async function rollupParts(
  db: TeamClient,
  q: TeamReportQuery,
  fromDay: number | null,
  toDay: number | null,
  out: Row[],
  pairs: Pair[],
): Promise<void> {
  const table = q.by === 'session' ? 'session_rollup' : 'completion_rollup';
  const w = new Where();
  if (fromDay !== null) w.add((p) => `day >= ${p(day(fromDay))}::date`);
  if (toDay !== null) w.add((p) => `day < ${p(day(toDay))}::date`);
  filters(q, w, { session: false, project: false });
  // Grouped by the bare columns ('' stands for NULL in the rollups, one to one).
  const col = q.by === 'day' ? 'day' : ROLLUP_GROUP[q.by];
  const g = q.by === 'day' ? "to_char(day, 'YYYY-MM-DD')" : `NULLIF(${col}, '')`;
  if (q.by === 'session') {
    // Tens of thousands of sessions with their pairs: summing every measure per (session, pair) first would mean
    // hundreds of thousands of groups. Measures per session, and the pairs' runs apart (as rows: json_agg was slower).
    for (const r of await db.query<Row>(
      `SELECT ${g} AS g, ${GROUPED} FROM ${S}.${table} ${w.sql} GROUP BY ${col} HAVING SUM(runs) <> 0`,
      w.params,
    )) {
      out.push(r);
    }
    for (const p of await db.query<Pair>(
      `SELECT ${g} AS g, NULLIF(requested_model, '') AS requested, NULLIF(served_model, '') AS served,
        SUM(runs)::float8 AS runs FROM ${S}.${table} ${w.sql} GROUP BY ${col}, requested_model, served_model HAVING SUM(runs) <> 0`,
      w.params,
    )) {
      pairs.push(p);
    }
    return;
  }
  await grouped(
    db,
    `SELECT ${g} AS g, NULLIF(requested_model, '') AS requested, NULLIF(served_model, '') AS served, ${ROLLUP_PAIR_MEASURES}
    FROM ${S}.${table} ${w.sql} GROUP BY ${col}, requested_model, served_model`,
    w.params,
    out,
    pairs,
  );
}

/** Dispatches that never completed (denied, or their child still running), grouped like the runs. */
async function openDispatches(db: TeamClient, q: TeamReportQuery): Promise<OpenAgg[]> {
  const w = new Where();
  w.add(() => 'NOT completed');
  if (q.since != null) w.add((p) => `at >= ${p(iso(q.since!))}::timestamptz`);
  if (q.until != null) w.add((p) => `at < ${p(iso(q.until!))}::timestamptz`);
  filters(q, w, { session: true, project: true });
  return db.query<OpenAgg>(
    `SELECT ${OPEN_GROUP[q.by]} AS g, COUNT(*)::float8 AS n, COUNT(*) FILTER (WHERE action = 'deny')::float8 AS denied,
       COUNT(*) FILTER (WHERE harness = 'cursor')::float8 AS cursor_runs, COUNT(*) FILTER (WHERE action = 'correct')::float8 AS corrected
     FROM ${S}.dispatches ${w.sql} GROUP BY 1`,
    w.params,
  );
}

export async function teamReportParts(db: TeamClient, q: TeamReportQuery): Promise<ReportParts> {
  const groups: Row[] = [];
  const pairs: Pair[] = [];
  if (q.session || q.project) {
    await rawParts(db, q, q.since ?? null, q.until ?? null, groups, pairs);
  } else {
    const fullFrom = q.since == null ? null : Math.ceil(q.since / DAY_MS) * DAY_MS;
    const fullTo = q.until == null ? null : Math.floor(q.until / DAY_MS) * DAY_MS;
    if (fullFrom !== null && fullTo !== null && fullFrom >= fullTo) {
      await rawParts(db, q, q.since!, q.until!, groups, pairs);
    } else {
      if (q.since != null && fullFrom! > q.since) await rawParts(db, q, q.since, fullFrom, groups, pairs);
      if (q.until != null && fullTo! < q.until) await rawParts(db, q, fullTo, q.until, groups, pairs);
      await rollupParts(db, q, fullFrom, fullTo, groups, pairs);
    }
  }
  const open = await openDispatches(db, q);
  const ignored: IgnoredAgg[] = groups.filter((r) => r.not_honoured > 0).map((r) => ({ g: r.g, n: r.not_honoured }));
  const decided: DecidedAgg[] = groups
    .filter((r) => r.corrected > 0 || r.saved_runs > 0)
    .map((r) => ({
      g: r.g,
      corrected: r.corrected,
      saved: r.saved_runs > 0 ? BigInt(r.saved) : null,
      savedRuns: r.saved_runs,
    }));
  return { groups, pairs, open, ignored, decided };
}

/**
 * `--by session`: each session's project and last activity, from the sessions the pushes keep (schema.ts): every
 * session in the person/machine/harness scope in one query (no more than all sessions), not a list of tens of
 * thousands of ids.
 */
async function sessionDetails(db: TeamClient, rows: ReportRow[], q: TeamReportQuery): Promise<ReportRow[]> {
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

/** One team report, inside the caller's snapshot (the HTML page builds several in one). */
export async function teamReport(db: TeamClient, q: TeamReportQuery, now = new Date()): Promise<Report> {
  const report = teamReportFrom(q, await teamReportParts(db, q), now);
  return q.by === 'session' ? { ...report, rows: await sessionDetails(db, report.rows, q) } : report;
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
    rows: [...rows],
    totals: rows.totals!,
  };
}
