/**
 * Stopped children and fan-out limit denials as `tiergate budget` shows them (issue 33 item 5): each is a decision of
 * its own kind in the ledger (`stopped`, `limit-deny`; ledger migration 10's decisions), counted for today and this
 * month (local calendar, as the budgets are) through the decisions' kind index.
 */
import type { Policy } from '../contracts/config.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { periodsAt } from '../observer/spend-summary.js';
import { hasLimits } from '../routing-engine/limits.js';

export type RefusalCounts = {
  stopped: { today: number; month: number };
  limitDenied: { today: number; month: number };
};

export function refusalCounts(db: SqlDriver, now: number): RefusalCounts {
  const p = periodsAt(now);
  const rows = db
    .prepare(
      `SELECT kind, SUM(at >= ?) AS today, COUNT(*) AS month FROM decisions
       WHERE kind IN ('stopped', 'limit-deny') AND at >= ? AND at < ? GROUP BY kind`,
    )
    .all<{ kind: string; today: number; month: number }>(p.day.start, p.month.start, p.month.end);
  const of = (kind: string) => {
    const r = rows.find((x) => x.kind === kind);
    return { today: r?.today ?? 0, month: r?.month ?? 0 };
  };
  return { stopped: of('stopped'), limitDenied: of('limit-deny') };
}

/** The limits set, in words: "concurrentSubagents 2, subagentsPerSession 10"; null when none. */
export function limitsText(limits: Policy['limits']): string | null {
  if (!hasLimits(limits)) return null;
  return (['concurrentSubagents', 'subagentsPerSession'] as const)
    .filter((k) => limits[k] !== undefined)
    .map((k) => `limits.${k} ${limits[k]}`)
    .join(', ');
}

/**
 * The lines under the budgets: stopped children where the policy stops them or some were, limit denials where a limit
 * is set or some were made. Nothing when neither applies.
 */
export function refusalTextLines(policy: Policy, c: RefusalCounts): string[] {
  const out: string[] = [];
  const when = (x: { today: number; month: number }) => `${x.today} today, ${x.month} this month`;
  const stops = policy.budgets.action === 'stop';
  if (stops || c.stopped.month > 0)
    out.push(
      `  stopped children: ${when(c.stopped)} (${stops ? 'budgets.action "stop": a running child stops at its next tool call once a budget is spent' : 'under an earlier budgets.action "stop"'})`,
    );
  const limits = limitsText(policy.limits);
  if (limits !== null || c.limitDenied.month > 0)
    out.push(`  limit denials: ${when(c.limitDenied)} (${limits ?? 'no limit set now'})`);
  return out;
}
