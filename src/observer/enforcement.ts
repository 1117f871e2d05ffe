/**
 * Verified enforcement: at completion, did the child run on the model tiergate decided? A harness may take a rewrite
 * and run something else anyway (public reports say some Claude Code, Codex and Cursor builds do), and then the ledger
 * would show a saving that never happened. Kept on the dispatch row (dispatches.enforcement, ledger migration 7), for
 * every correction once its child has finished:
 *
 *   honoured     the served model resolves to the same catalog id as the decided one;
 *   ignored      it resolves to another id (the original request, or anything else);
 *   not-checked  no correction was made (only a correction is checked: an allow sets nothing a harness could ignore,
 *                and whether the harness resolved an unrewritten model as tiergate expected is item 1's question, not
 *                this one), or no served model is known, or either name is unknown to the price resolver, or both
 *                only *estimate* to the same id (a newer version of the same line: cannot tell).
 *
 * Names are compared by the price resolver's id (alias `haiku` and served `claude-haiku-5-5-20260101` or
 * `anthropic/claude-haiku-5-5` are the same), never by string equality. This pass is the column's only writer. NULL
 * on a row: not a correction (never checked, read as not-checked), or a correction not checked yet (its completion is
 * missing or pending, or no catalog was loaded).
 *
 * A harness seen ignoring a correction gets a marker file (observer/rewrite-marker.ts) that the dispatch path reads
 * when the policy asks for `onIgnoredRewrite: "deny"`.
 */
import type { Harness } from '../contracts/harness.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { writeFileAtomic } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { readRewriteMarker, REWRITE_MARKER_FORMAT, rewriteMarkerPath, type RewriteMarker } from './rewrite-marker.js';
import type { SqlDriver } from './ledger/driver.js';
import type { ModelIdentity } from './pricing.js';

export const ENFORCEMENT = ['honoured', 'ignored', 'not-checked'] as const;
export type Enforcement = (typeof ENFORCEMENT)[number];

export type Identify = (model: string, harness: Harness) => ModelIdentity;

export type EnforcementInput = {
  harness: Harness;
  /** The decision's action as recorded (dispatches.action). */
  action: string | null;
  /** The model tiergate decided the child runs on (dispatches.effective_model). */
  decided: string | null;
  /** The model the dispatch itself named, before any correction (dispatches.requested_model). */
  requested: string | null;
  /** The model that served the child (completions.served_model). */
  served: string | null;
};

/** Pure: the rules in this file's header. */
export function classifyEnforcement(i: EnforcementInput, identify: Identify): Enforcement {
  if (i.action !== 'correct' || !i.decided || !i.served) return 'not-checked';
  const decided = identify(i.decided, i.harness);
  const served = identify(i.served, i.harness);
  if (decided.id === null || served.id === null) return 'not-checked';
  if (decided.id !== served.id) return 'ignored';
  return decided.how === 'estimated' || served.how === 'estimated' ? 'not-checked' : 'honoured';
}

/** Rows classified per statement: a first pass over an upgraded ledger's old corrections stays inside a hook's budget. */
const BATCH = 500;

type TodoRow = {
  id: number;
  harness: Harness;
  action: string | null;
  decided: string | null;
  requested: string | null;
  at: number;
  served: string | null;
};

export type EnforcementStats = { checked: number; ignored: number };

/**
 * Classifies every corrected dispatch whose completion is in and final (not pending), then updates the markers of the
 * harnesses that ignored one. Stops at `deadline` between batches (the rest waits for the next pass). Never throws.
 */
export function checkEnforcement(db: SqlDriver, identify: Identify, env: Env, deadline = Infinity): EnforcementStats {
  const stats: EnforcementStats = { checked: 0, ignored: 0 };
  const seen = new Map<Harness, { count: number; last: TodoRow }>();
  try {
    const todo = db.prepare(
      `SELECT d.id AS id, d.harness AS harness, d.action AS action, d.effective_model AS decided,
         d.requested_model AS requested, d.at AS at, c.served_model AS served
       FROM dispatches d JOIN completions c ON c.id = d.completion_id
       WHERE d.enforcement IS NULL AND d.action = 'correct' AND d.completion_id IS NOT NULL AND c.status <> 'pending'
         AND d.id > ?
       ORDER BY d.id LIMIT ${BATCH}`,
    );
    const set = db.prepare('UPDATE dispatches SET enforcement = ? WHERE id = ?');
    let after = 0;
    for (;;) {
      const rows = todo.all<TodoRow>(after);
      if (rows.length === 0) break;
      db.transaction(() => {
        for (const r of rows) {
          const e = classifyEnforcement(r, identify);
          set.run(e, r.id);
          stats.checked++;
          if (e !== 'ignored') continue;
          stats.ignored++;
          const s = seen.get(r.harness);
          if (s) {
            s.count++;
            if (r.at >= s.last.at) s.last = r;
          } else seen.set(r.harness, { count: 1, last: r });
        }
      });
      after = rows[rows.length - 1]!.id;
      if (rows.length < BATCH || Date.now() > deadline) break;
    }
  } catch (err) {
    diagnose('error', 'observer:enforcement', errorText(err), {}, env);
  }
  for (const [harness, s] of seen) noteIgnored(env, harness, s.count, s.last);
  return stats;
}

/** One diagnostic per harness and pass (never silent), and the marker the dispatch path reads. */
function noteIgnored(env: Env, harness: Harness, count: number, last: TodoRow): void {
  const example = { decided: last.decided, requested: last.requested, served: last.served, at: last.at };
  diagnose(
    'warn',
    'observer:enforcement',
    `${harness} did not honour ${count} correction(s): ran ${last.served} where tiergate set ${last.decided}`,
    { harness, count },
    env,
  );
  try {
    const old = readRewriteMarker(env, harness);
    const marker: RewriteMarker = {
      format: REWRITE_MARKER_FORMAT,
      harness,
      firstSeenAt: old?.firstSeenAt ?? last.at,
      lastSeenAt: Math.max(old?.lastSeenAt ?? 0, last.at),
      ignored: (old?.ignored ?? 0) + count,
      last: old && old.last.at > last.at ? old.last : example,
    };
    writeFileAtomic(rewriteMarkerPath(env, harness), `${JSON.stringify(marker)}\n`);
  } catch (err) {
    diagnose('error', 'observer:enforcement', `marker not written: ${errorText(err)}`, { harness }, env);
  }
}
