/**
 * Stopped children, fan-out limit denials and asks as `tiergate budget` shows them (issue 33 item 5): each is a decision
 * of its own kind in the ledger (`stopped`, `limit-deny`, `ask`; ledger migration 10's decisions), counted for today and
 * this month (local calendar, as the budgets are) through the decisions' kind index. An ask's child that ran (approved)
 * is its decision joined to a completion, as every decision joins.
 */
import type { Policy } from '../contracts/config.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { periodsAt } from '../observer/spend-summary.js';
import { hasLimits } from '../routing-engine/limits.js';
import { policyAsks } from '../routing-engine/ask.js';

/** What the policy asks about, in its keys: 'onOverCeiling "ask", budgets.action "ask"'. */
function askPolicyText(policy: Policy): string {
  const keys = [
    policy.onOverCeiling === 'ask' ? 'onOverCeiling "ask"' : '',
    policy.budgets.action === 'ask' ? 'budgets.action "ask"' : '',
  ];
  return `${keys.filter(Boolean).join(', ')}: the permission prompt, refused where no one can answer`;
}

export type RefusalCounts = {
  stopped: { today: number; month: number };
  limitDenied: { today: number; month: number };
  /** Asks raised, and of them those whose child ran (`ran`: the person approved). */
  asked: { today: number; month: number; ran: { today: number; month: number } };
};

export function refusalCounts(db: SqlDriver, now: number): RefusalCounts {
  const p = periodsAt(now);
  const rows = db
    .prepare(
      `SELECT kind, SUM(at >= ?) AS today, COUNT(*) AS month, SUM(at >= ? AND completion_id IS NOT NULL) AS ran_today,
         SUM(completion_id IS NOT NULL) AS ran_month FROM decisions
       WHERE kind IN ('stopped', 'limit-deny', 'ask') AND at >= ? AND at < ? GROUP BY kind`,
    )
    .all<{ kind: string; today: number; month: number; ran_today: number; ran_month: number }>(
      p.day.start,
      p.day.start,
      p.month.start,
      p.month.end,
    );
  const row = (kind: string) => rows.find((x) => x.kind === kind);
  const of = (kind: string) => ({ today: row(kind)?.today ?? 0, month: row(kind)?.month ?? 0 });
  const ask = row('ask');
  return {
    stopped: of('stopped'),
    limitDenied: of('limit-deny'),
    asked: { ...of('ask'), ran: { today: ask?.ran_today ?? 0, month: ask?.ran_month ?? 0 } },
  };
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
 * is set or some were made, asks where the policy asks or some were raised. Nothing when none applies.
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
  const asks = policyAsks(policy);
  if (asks || c.asked.month > 0)
    out.push(
      `  asks: ${c.asked.today} today (${c.asked.ran.today} approved and ran), ${c.asked.month} this month (${c.asked.ran.month} approved and ran) (${asks ? askPolicyText(policy) : 'no ask set now'})`,
    );
  return out;
}
