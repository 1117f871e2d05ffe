/**
 * One row per run for `tiergate report --csv` (issue 29): every completion and every dispatch that never completed,
 * each with its own requested -> served pair, what a correction set, the decision and how it was joined, its cost and
 * its saving. The same scope, time basis and grouping as the report's rows (query.ts), so the runs of a group sum to
 * its row and every run sums to the totals the table prints.
 */
import type { Money } from '../contracts/report.js';
import type { Harness } from '../contracts/harness.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { picoToUsd, type Pricer } from '../observer/pricing.js';
import { savedOf } from './decision-savings.js';
import { groupBy, type ReportQuery } from './query.js';
import { scopeWhere } from './scope-sql.js';
import { PENDING_GIVE_UP_MS } from '../collect/drain.js';

export type RunRow = {
  group: string | null;
  harness: string;
  session: string | null;
  agent: string | null;
  requested: string | null;
  served: string | null;
  correctedTo: string | null;
  /** The decision record's kind, else the dispatch's action; null for a run no hook decided (scanned). */
  decision: string | null;
  joinMethod: string | null;
  /** A correction's enforcement check (observer/enforcement.ts): honoured, ignored, … ; null when not checked. */
  enforcement: string | null;
  /**
   * A completion's status; for a dispatch that never completed: `denied`, `open` (its child may still be running), or
   * `lost` (no completion after the observer's give-up time, drain.ts PENDING_GIVE_UP_MS); `stopped` for a running
   * child stopped by a budget (decision `stopped`: a line of its own, not a run; the child's run is its own line);
   * `asked` for an ask whose child never ran (refused at the prompt, or still running: tiergate never sees the answer;
   * an approved one's run carries its completion's status and the decision `ask`).
   */
  status: string;
  at: string;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  cost: Money;
  /** The same usage on the parent's model minus the cost (the table's "vs parent"); null unless priced both ways. */
  vsParent: Money;
  saved: Money;
  savedBasis: 'recorded' | 'estimated' | null;
};

type Raw = {
  g: string | null;
  harness: Harness;
  session_id: string | null;
  agent: string | null;
  requested: string | null;
  served: string | null;
  to_value: string | null;
  kind: string | null;
  action: string | null;
  join_method: string | null;
  enforcement: string | null;
  status: string;
  t: number;
  input: number | null;
  output: number | null;
  cache_read: number | null;
  cache_write_5m: number | null;
  cache_write_1h: number | null;
  reasoning: number | null;
  requests: number | null;
  cost: string | null;
  vs_parent: string | null;
  rates: string | null;
  baseline: string | null;
};

const money = (pico: bigint | null): Money =>
  pico === null ? { usd: null, pico: null } : { usd: picoToUsd(pico), pico: pico.toString() };

export function queryRuns(db: SqlDriver, q: ReportQuery, pricer: Pricer | null = null): RunRow[] {
  const group = groupBy(db, q);
  const w = scopeWhere(q, 'ended_at', q.since ?? null, q.until ?? null);
  const wd = scopeWhere(q, 'at', q.since ?? null, q.until ?? null);
  const done = db
    .prepare(
      `SELECT c.g AS g, c.harness AS harness, c.session_id AS session_id, c.subagent_type AS agent,
         c.requested_model AS requested, c.served_model AS served, o.to_value AS to_value, o.kind AS kind,
         d.action AS action, o.join_method AS join_method,
         CASE WHEN c.followup = 0 THEN d.enforcement END AS enforcement, c.status AS status, c.ended_at AS t, c.input AS input,
         c.output AS output, c.cache_read AS cache_read, c.cache_write_5m AS cache_write_5m,
         c.cache_write_1h AS cache_write_1h, c.reasoning AS reasoning, c.requests AS requests,
         CAST(c.cost_pico AS TEXT) AS cost, CAST(c.counterfactual_pico - c.cost_pico AS TEXT) AS vs_parent,
         o.without_rates AS rates,
         COALESCE(d.requested_model, d.parent_model) AS baseline
       FROM (SELECT *, ${group.completion} AS g FROM completions ${w.sql}) c
       LEFT JOIN dispatches d ON d.id = c.dispatch_id LEFT JOIN decisions o ON o.dispatch_id = c.dispatch_id
       ORDER BY c.ended_at, c.id`,
    )
    .all<Raw>(...w.params);
  const open = db
    .prepare(
      `SELECT d.g AS g, d.harness AS harness, d.session_id AS session_id,
         COALESCE(d.subagent_type, d.requested_agent) AS agent, COALESCE(o.without_model, d.requested_model) AS requested,
         NULL AS served, o.to_value AS to_value, o.kind AS kind, d.action AS action, NULL AS join_method, d.enforcement AS enforcement,
         CASE WHEN d.reason = 'child-stopped' THEN 'stopped' WHEN d.action = 'deny' THEN 'denied'
           WHEN d.action = 'ask' THEN 'asked' WHEN d.at < ? THEN 'lost' ELSE 'open' END AS status, d.at AS t, NULL AS input, NULL AS output,
         NULL AS cache_read, NULL AS cache_write_5m, NULL AS cache_write_1h, NULL AS reasoning, NULL AS requests,
         NULL AS cost, NULL AS vs_parent, NULL AS rates, NULL AS baseline
       FROM (SELECT *, ${group.dispatch} AS g FROM dispatches ${wd.sql ? `${wd.sql} AND` : 'WHERE'} completion_id IS NULL) d
       LEFT JOIN decisions o ON o.dispatch_id = d.id ORDER BY d.at, d.id`,
    )
    .all<Raw>(Date.now() - PENDING_GIVE_UP_MS, ...wd.params);
  return [...done, ...open]
    .sort((a, b) => a.t - b.t)
    .map((r) => {
      const corrected = r.action === 'correct';
      const s = corrected ? savedOf(r, pricer) : null;
      return runRow({
        ...r,
        corrected_to: corrected ? r.to_value : null,
        decision: r.kind,
        cache_write: (r.cache_write_5m ?? 0) + (r.cache_write_1h ?? 0),
        cost: r.cost === null ? null : BigInt(r.cost),
        vs_parent: r.vs_parent === null ? null : BigInt(r.vs_parent),
        saved: s ? s.saved : null,
        saved_basis: s ? s.basis : null,
      });
    });
}

/** The fields of one run as the local ledger's and the team store's queries both give them (pico-USD as bigint). */
export type RunFields = {
  g: string | null;
  harness: string;
  session_id: string | null;
  agent: string | null;
  requested: string | null;
  served: string | null;
  corrected_to: string | null;
  decision: string | null;
  action: string | null;
  join_method: string | null;
  enforcement: string | null;
  status: string;
  t: number;
  input: number | null;
  output: number | null;
  cache_read: number | null;
  cache_write: number | null;
  cost: bigint | null;
  vs_parent: bigint | null;
  saved: bigint | null;
  saved_basis: string | null;
};

/** One CSV run, the same for `report --csv` and `report --team --csv`. */
export function runRow(r: RunFields): RunRow {
  return {
    group: r.g,
    harness: r.harness,
    session: r.session_id,
    agent: r.agent,
    requested: r.requested,
    served: r.served,
    correctedTo: r.corrected_to,
    decision: r.decision ?? r.action,
    joinMethod: r.join_method,
    enforcement: r.enforcement,
    status: r.status,
    at: new Date(r.t).toISOString(),
    tokens: {
      input: r.input ?? 0,
      output: r.output ?? 0,
      cacheRead: r.cache_read ?? 0,
      cacheWrite: r.cache_write ?? 0,
    },
    cost: money(r.cost),
    vsParent: money(r.vs_parent),
    saved: money(r.saved),
    savedBasis: r.saved_basis === 'recorded' || r.saved_basis === 'estimated' ? r.saved_basis : null,
  };
}
