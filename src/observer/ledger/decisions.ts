/**
 * The decision record in the ledger (migration 10): written when a hook's dispatch line is drained, joined to the
 * child's completion, and read by the report's savings (src/report/decision-savings.ts).
 *
 * Joins, in order: the dispatch's own id (tool_use id, call id, tool call id: store.ts joinCompletions), then, for a
 * completion that carries none, the best match: the same harness and session, the agent the dispatch asked for or was
 * corrected to, the earliest open decision dispatched before the child started (order). The row says which
 * (`join_method`: dispatch-id or session-agent-order). A decision with no completion stays open: denied, pending, lost.
 */
import type { DecisionDetail, RateList } from '../../contracts/decision-record.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import type { SqlDriver } from './driver.js';

/** Rates as stored: "input,output,cacheRead,cacheWrite5m,cacheWrite1h" (report/decision-savings.ts reads them). */
const rateText = (r: RateList | null): string | null => (r ? r.join(',') : null);

/** After its dispatch row (same key): a decision recorded again (a spool line re-read) replaces itself. */
export function recordDecision(db: SqlDriver, dispatchKey: string, o: DispatchObservation, d: DecisionDetail): boolean {
  const r = db
    .prepare(
      `INSERT INTO decisions (dispatch_id, harness, session_id, call_id, at, agent, requested_model, without_model,
       without_from, without_source, parent_model, parent_from, kind, reason, to_value, to_model, without_rates,
       chosen_rates, budget)
     SELECT id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, reason, ?, ?, ?, ?, ? FROM dispatches WHERE dedupe_key = ? AND source = 'spool'
     ON CONFLICT (dispatch_id) DO UPDATE SET kind = excluded.kind, to_value = excluded.to_value, to_model = excluded.to_model,
       without_model = excluded.without_model, without_from = excluded.without_from, without_source = excluded.without_source,
       without_rates = excluded.without_rates, chosen_rates = excluded.chosen_rates, budget = excluded.budget,
       reason = excluded.reason
     WHERE decisions.kind IS NOT excluded.kind OR decisions.without_model IS NOT excluded.without_model
       OR decisions.without_rates IS NOT excluded.without_rates OR decisions.to_value IS NOT excluded.to_value`,
    )
    .run(
      o.harness,
      o.sessionId,
      o.callId,
      o.at,
      o.requestedAgent ?? o.subagentType,
      o.requestedModel,
      d.without,
      d.withoutFrom,
      d.withoutSource,
      o.parentModel,
      o.parentModelSource,
      d.kind,
      d.to,
      d.toModel,
      rateText(d.withoutRates),
      rateText(d.chosenRates),
      d.budget,
      dispatchKey,
    );
  return r.changes > 0;
}

/**
 * Best match for completions that carry no dispatch id: same harness and session, an open decision that let a child
 * run, dispatched no later than the child started, for the agent the child reports (asked for or corrected to);
 * earliest first, so children and dispatches pair up in order.
 */
function joinBestMatch(db: SqlDriver, joined: number[]): void {
  const orphans = db
    .prepare(
      `SELECT c.id AS id, c.harness AS harness, c.session_id AS session_id, c.subagent_type AS agent,
         COALESCE(c.started_at, c.ended_at) AS t
       FROM completions c
       WHERE c.dispatch_id IS NULL AND c.call_id IS NULL AND c.session_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM decisions o WHERE o.completion_id IS NULL AND o.harness = c.harness
           AND o.session_id = c.session_id)
         AND NOT EXISTS (SELECT 1 FROM dispatches x WHERE x.harness = c.harness AND x.child_agent_id = c.agent_id)
       ORDER BY t, c.id`,
    )
    .all<{ id: number; harness: string; session_id: string; agent: string | null; t: number }>();
  if (orphans.length === 0) return;
  const pick = db.prepare(
    `SELECT o.dispatch_id AS id FROM decisions o JOIN dispatches d ON d.id = o.dispatch_id
     WHERE o.completion_id IS NULL AND o.harness = ? AND o.session_id = ? AND o.at <= ?
       AND o.kind NOT IN ('deny', 'budget-deny') AND d.completion_id IS NULL
       AND (? IS NULL OR ? IN (o.agent, o.to_value, d.subagent_type))
     ORDER BY o.at, o.dispatch_id LIMIT 1`,
  );
  const link = db.prepare(
    `UPDATE completions SET dispatch_id = d.id, parent_model = COALESCE(completions.parent_model, d.parent_model),
       tier = COALESCE(completions.tier, d.tier)
     FROM dispatches d WHERE d.id = ? AND completions.id = ? AND completions.dispatch_id IS NULL`,
  );
  const close = db.prepare('UPDATE dispatches SET completion_id = ? WHERE id = ? AND completion_id IS NULL');
  const method = db.prepare(
    `UPDATE decisions SET completion_id = ?, join_method = 'session-agent-order' WHERE dispatch_id = ?`,
  );
  for (const c of orphans) {
    const d = pick.get<{ id: number }>(c.harness, c.session_id, c.t, c.agent, c.agent);
    if (!d) continue;
    if (link.run(d.id, c.id).changes === 0) continue;
    close.run(c.id, d.id);
    method.run(c.id, d.id);
    joined.push(d.id);
  }
}

/**
 * After store.ts's exact-id join: open decisions whose dispatch found its completion take it (method dispatch-id),
 * then the best match runs, then every newly joined completion is labelled with what the dispatch asked for (the
 * agent, and the model it would have run on without tiergate), so the report groups by the request and shows the
 * correction beside it. A completion joined before its decision was drained gets the same labels here.
 */
export function joinDecisions(db: SqlDriver): number {
  const open = db
    .prepare(
      `SELECT o.dispatch_id AS id, d.completion_id AS completion FROM decisions o JOIN dispatches d ON d.id = o.dispatch_id
       WHERE o.completion_id IS NULL AND d.completion_id IS NOT NULL`,
    )
    .all<{ id: number; completion: number }>();
  const exact = db.prepare(
    `UPDATE decisions SET completion_id = ?, join_method = COALESCE(join_method, 'dispatch-id') WHERE dispatch_id = ?`,
  );
  for (const o of open) exact.run(o.completion, o.id);
  const joined = open.map((o) => o.id);
  joinBestMatch(db, joined);
  const label = db.prepare(
    `UPDATE completions SET requested_model = COALESCE(o.without_model, completions.requested_model),
       subagent_type = COALESCE(o.agent, completions.subagent_type)
     FROM decisions o
     WHERE o.dispatch_id = ? AND completions.dispatch_id = o.dispatch_id
       AND (completions.requested_model IS NOT COALESCE(o.without_model, completions.requested_model)
         OR completions.subagent_type IS NOT COALESCE(o.agent, completions.subagent_type))`,
  );
  for (const id of joined) label.run(id);
  return joined.length;
}
