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
  const byAt = scopeWhere(q, 'at', q.since ?? null, q.until ?? null);
  const byEnd = scopeWhere(q, 'ended_at', q.since ?? null, q.until ?? null);
  const and = (w: { sql: string }) => (w.sql ? `${w.sql} AND` : 'WHERE');
  // A subagent's requests count on the table's time basis (issue 29): with the child whose completion ended in range,
  // found by its key (store.ts completionKey: harness:agent:<id>, a turn's :turn:<id> after it); a subagent request
  // no completion holds, and every parent request, by its own time.
  const key = "r.harness || ':agent:' || r.agent_id";
  const held = `EXISTS (SELECT 1 FROM completions c WHERE c.dedupe_key = ${key}
    OR (c.dedupe_key > ${key} || ':turn:' AND c.dedupe_key < ${key} || ':turn;'))`;
  const r = db
    .prepare(
      `WITH x AS (
         SELECT r.session_id, r.sidechain, r.cost_pico FROM requests r ${and(byAt)} (r.sidechain = 0 OR r.agent_id IS NULL OR NOT ${held})
         UNION ALL
         SELECT r.session_id, r.sidechain, r.cost_pico
         FROM (SELECT DISTINCT harness, session_id, agent_id FROM completions ${and(byEnd)} agent_id IS NOT NULL) k
         JOIN requests r ON r.harness = k.harness AND r.session_id = k.session_id AND r.agent_id = k.agent_id
         WHERE r.sidechain = 1)
       SELECT COUNT(*) AS n, COALESCE(SUM(sidechain), 0) AS sub_n, COUNT(DISTINCT session_id) AS sessions,
       CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS cost, CAST(COALESCE(SUM(CASE WHEN sidechain = 1 THEN cost_pico END), 0) AS TEXT) AS sub_cost,
       COUNT(cost_pico) AS priced, SUM(sidechain = 1 AND cost_pico IS NOT NULL) AS sub_priced
     FROM x`,
    )
    .get<{
      n: number;
      sub_n: number;
      sessions: number;
      cost: string;
      sub_cost: string;
      priced: number;
      sub_priced: number | null;
    }>(...byAt.params, ...byEnd.params);
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
