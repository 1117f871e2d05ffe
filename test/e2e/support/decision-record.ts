/**
 * The decision record (issue 29) as a real harness run left it: the spool drained and joined by the observer pass the
 * next CLI run makes, then each decision with the model the child would have run on without tiergate, the link that
 * gave it, what the decision set, how its completion was joined and the model that served it.
 */
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { runObserver } from '../../../src/collect/drain.js';
import { openLedger } from '../../../src/observer/ledger/open.js';

export type DecisionRow = {
  harness: string;
  /** The agent asked for (a stopped child's record: the child's own agent, where its harness tells it): only when asked
   * for (`withAgent`), so the suites that compare whole rows state what they are about. */
  agent?: string | null;
  without_model: string | null;
  without_from: string;
  kind: string;
  to_value: string | null;
  join_method: string | null;
  served_model: string | null;
};

export function decisionRecord(env: Record<string, string>, { withAgent = false } = {}): DecisionRow[] {
  const db = openLedger(env);
  try {
    runObserver(env, loadPricer(env, null), db);
    return db
      .prepare(
        `SELECT o.harness AS harness,${withAgent ? ' o.agent AS agent,' : ''} o.without_model AS without_model, o.without_from AS without_from, o.kind AS kind,
           o.to_value AS to_value, o.join_method AS join_method, c.served_model AS served_model
         FROM decisions o LEFT JOIN completions c ON c.id = o.completion_id ORDER BY o.at, o.dispatch_id`,
      )
      .all() as DecisionRow[];
  } finally {
    db.close();
  }
}
