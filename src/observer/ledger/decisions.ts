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
import { ledgerParams } from './text.js';

/** Rates as stored: "input,output,cacheRead,cacheWrite5m,cacheWrite1h" (report/decision-savings.ts reads them). */
const rateText = (r: RateList | null): string | null => (r ? r.join(',') : null);

/** Decisions older than this are not best-matched any more (a child that never reported is lost, drain.ts). */
const MATCH_WINDOW_MS = 7 * 24 * 3600 * 1000;

/**
 * After its dispatch row (same key): a decision recorded again (a spool line re-read) replaces itself. A dispatch whose
 * completion was joined before its decision was drained gives the decision its join here, and its runs their labels.
 */
export function recordDecision(db: SqlDriver, dispatchKey: string, o: DispatchObservation, d: DecisionDetail): boolean {
  const r = db
    .prepare(
      `INSERT INTO decisions (dispatch_id, harness, session_id, call_id, at, agent, requested_model, without_model,
       without_from, without_source, parent_model, parent_from, kind, reason, to_value, to_model, without_rates,
       chosen_rates, budget, completion_id, join_method)
     SELECT id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, reason, ?, ?, ?, ?, ?, completion_id,
       CASE WHEN completion_id IS NOT NULL THEN 'dispatch-id' END
     FROM dispatches WHERE dedupe_key = ? AND source = 'spool'
     ON CONFLICT (dispatch_id) DO UPDATE SET kind = excluded.kind, to_value = excluded.to_value, to_model = excluded.to_model,
       without_model = excluded.without_model, without_from = excluded.without_from, without_source = excluded.without_source,
       without_rates = excluded.without_rates, chosen_rates = excluded.chosen_rates, budget = excluded.budget,
       reason = excluded.reason
     WHERE decisions.kind IS NOT excluded.kind OR decisions.without_model IS NOT excluded.without_model
       OR decisions.without_rates IS NOT excluded.without_rates OR decisions.to_value IS NOT excluded.to_value`,
    )
    // Cleaned like every ledger text (text.ts): the dispatch row's dedupe key was stored cleaned.
    .run(
      ...ledgerParams([
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
      ]),
    );
  if (r.changes > 0) {
    const id = db.prepare('SELECT id FROM dispatches WHERE dedupe_key = ?').get<{ id: number }>(dispatchKey);
    if (id) labelRuns(db, id.id);
  }
  return r.changes > 0;
}

/**
 * A decided dispatch's runs are labelled with what was asked (the agent, and the model it would have run on without
 * tiergate), so the report groups by the request and shows the correction beside it. Idempotent.
 */
function labelRuns(db: SqlDriver, dispatchId: number): void {
  db.prepare(
    `UPDATE completions SET requested_model = COALESCE(o.without_model, completions.requested_model),
       subagent_type = COALESCE(o.agent, completions.subagent_type)
     FROM decisions o
     WHERE o.dispatch_id = ? AND completions.dispatch_id = o.dispatch_id
       AND (completions.requested_model IS NOT COALESCE(o.without_model, completions.requested_model)
         OR completions.subagent_type IS NOT COALESCE(o.agent, completions.subagent_type))`,
  ).run(dispatchId);
}

/**
 * A best match whose completion has since learned its dispatch id (a late flush): the same dispatch's is a join by
 * id after all; another's is undone, so the exact join of the next pass links the right one.
 */
function checkBestMatches(db: SqlDriver): void {
  const learned = db
    .prepare(
      `SELECT o.dispatch_id AS id, o.completion_id AS completion, c.call_id = o.call_id AS same FROM decisions o
       JOIN completions c ON c.id = o.completion_id
       WHERE o.join_method = 'session-agent-order' AND c.call_id IS NOT NULL`,
    )
    .all<{ id: number; completion: number; same: number }>();
  for (const m of learned) {
    if (m.same) {
      db.prepare(`UPDATE decisions SET join_method = 'dispatch-id' WHERE dispatch_id = ?`).run(m.id);
      continue;
    }
    db.prepare('UPDATE decisions SET completion_id = NULL, join_method = NULL WHERE dispatch_id = ?').run(m.id);
    db.prepare('UPDATE dispatches SET completion_id = NULL WHERE id = ?').run(m.id);
    db.prepare('UPDATE completions SET dispatch_id = NULL WHERE id = ?').run(m.completion);
  }
}

/**
 * Best match for completions that carry no dispatch id (store.ts joins the rest by id; a trigger copies that join onto
 * the decision): each open decision that let a child run, oldest first, within the match window, takes the earliest
 * unjoined completion of the same harness and session that started no earlier than it was dispatched, for the agent
 * the child reports (asked for or corrected to); so children and dispatches pair up in order. A pending completion
 * waits: its transcript may still name its dispatch (Copilot CLI settles its children at session end). Reads only
 * open decisions and orphan completions, each through its partial index.
 */
export function joinDecisions(db: SqlDriver, now = Date.now()): number {
  checkBestMatches(db);
  // The refusals added later in their own term: the first stays word for word the partial index's (decisions_open).
  const open = db
    .prepare(
      `SELECT o.dispatch_id AS id, o.harness AS harness, o.session_id AS session, o.at AS at, o.agent AS agent,
         o.to_value AS to_value, d.subagent_type AS subagent_type
       FROM decisions o JOIN dispatches d ON d.id = o.dispatch_id
       WHERE o.completion_id IS NULL AND o.kind NOT IN ('deny', 'budget-deny') AND o.kind NOT IN ('limit-deny', 'stopped') AND o.at >= ?
         AND o.session_id IS NOT NULL AND d.completion_id IS NULL
         AND EXISTS (SELECT 1 FROM completions c WHERE c.dispatch_id IS NULL AND c.call_id IS NULL
           AND c.harness = o.harness AND c.session_id = o.session_id AND c.status <> 'pending')
       ORDER BY o.at, o.dispatch_id`,
    )
    .all<{
      id: number;
      harness: string;
      session: string;
      at: number;
      agent: string | null;
      to_value: string | null;
      subagent_type: string | null;
    }>(now - MATCH_WINDOW_MS);
  if (open.length === 0) return 0;
  const pick = db.prepare(
    `SELECT c.id AS id FROM completions c
     WHERE c.dispatch_id IS NULL AND c.call_id IS NULL AND c.harness = ? AND c.session_id = ?
       AND COALESCE(c.started_at, c.ended_at) >= ? AND c.status <> 'pending'
       AND (c.subagent_type IS NULL OR c.subagent_type IN (?, ?, ?))
       AND NOT EXISTS (SELECT 1 FROM dispatches x WHERE x.harness = c.harness AND x.child_agent_id = c.agent_id)
     ORDER BY COALESCE(c.started_at, c.ended_at), c.id LIMIT 1`,
  );
  const method = db.prepare(`UPDATE decisions SET join_method = 'session-agent-order' WHERE dispatch_id = ?`);
  const link = db.prepare(
    `UPDATE completions SET dispatch_id = d.id, parent_model = COALESCE(completions.parent_model, d.parent_model),
       tier = COALESCE(completions.tier, d.tier)
     FROM dispatches d WHERE d.id = ? AND completions.id = ? AND completions.dispatch_id IS NULL`,
  );
  // Its trigger (ledger migration 10) copies the join onto the decision, keeping the method set just before.
  const close = db.prepare('UPDATE dispatches SET completion_id = ? WHERE id = ? AND completion_id IS NULL');
  let n = 0;
  for (const o of open) {
    const c = pick.get<{ id: number }>(o.harness, o.session, o.at, o.agent, o.to_value, o.subagent_type);
    if (!c) continue;
    if (link.run(o.id, c.id).changes === 0) continue;
    method.run(o.id);
    close.run(c.id, o.id);
    labelRuns(db, o.id);
    n++;
  }
  return n;
}
