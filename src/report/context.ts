/**
 * What a report says around its rows, from the local ledger: each session's project and last activity (`--by session`),
 * and the whole usage where tiergate knows it (requests `tiergate scan` read from the transcripts, parents included),
 * so the subagents' spend can be put beside everything the sessions spent.
 */
import type { Report, ReportRow } from '../contracts/report.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { picoToUsd } from '../observer/pricing.js';
import { scopeWhere, type ScopeFilters } from './scope-sql.js';

/**
 * Project and last activity of the sessions shown. One pass over the sessions table (keyed by harness first, so a
 * lookup by id alone would scan it anyway: once per chunk of ids took 200 ms for 2,500 sessions, this takes one).
 */
export function withSessionDetails(db: SqlDriver, rows: ReportRow[]): ReportRow[] {
  const wanted = new Set(rows.map((r) => r.group).filter((g): g is string => g !== null));
  const found = new Map<string, { project: string | null; last: number }>();
  if (wanted.size) {
    const all = db
      .prepare('SELECT session_id AS id, project, last_at AS last FROM sessions')
      .all<{ id: string; project: string | null; last: number }>();
    for (const s of all) {
      if (!wanted.has(s.id)) continue;
      const cur = found.get(s.id);
      if (!cur) found.set(s.id, { project: s.project, last: s.last });
      else found.set(s.id, { project: cur.project ?? s.project, last: Math.max(cur.last, s.last) });
    }
  }
  return rows.map((r) => {
    const s = r.group === null ? undefined : found.get(r.group);
    return { ...r, project: s?.project ?? null, lastActivity: s ? new Date(s.last).toISOString() : null };
  });
}

type Whole = NonNullable<Report['wholeUsage']>;

/** The scanned requests in the report's scope (time, harness, session, project); undefined when there are none. */
/** The filters wholeUsage reads: a ReportQuery's (query.ts, which imports this module, so the type is not imported back). */
type UsageFilters = ScopeFilters & { since?: number | null; until?: number | null };

export function wholeUsage(db: SqlDriver, q: UsageFilters): Whole | undefined {
  const { sql, params } = scopeWhere(q, 'at', q.since ?? null, q.until ?? null);
  const r = db
    .prepare(
      `SELECT COUNT(*) AS n, COALESCE(SUM(sidechain), 0) AS sub_n, COUNT(DISTINCT session_id) AS sessions,
       CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS cost, CAST(COALESCE(SUM(CASE WHEN sidechain = 1 THEN cost_pico END), 0) AS TEXT) AS sub_cost,
       COUNT(cost_pico) AS priced, SUM(sidechain = 1 AND cost_pico IS NOT NULL) AS sub_priced
     FROM requests ${sql}`,
    )
    .get<{
      n: number;
      sub_n: number;
      sessions: number;
      cost: string;
      sub_cost: string;
      priced: number;
      sub_priced: number | null;
    }>(...params);
  if (!r || r.n === 0) return undefined;
  const money = (pico: string, priced: number) =>
    priced > 0 ? { usd: picoToUsd(BigInt(pico)), pico } : { usd: null, pico: null };
  return {
    requests: r.n,
    subagentRequests: r.sub_n,
    sessions: r.sessions,
    unpricedRequests: r.n - r.priced,
    cost: money(r.cost, r.priced),
    subagentCost: money(r.sub_cost, r.sub_priced ?? 0),
  };
}
