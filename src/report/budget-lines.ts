/**
 * The budgets as the CLI shows them (`tiergate budget`, `report`, the HTML page, `doctor`): each budget set, the spend
 * against it from the spend summary (observer/spend-summary.ts, rebuilt from the ledger by the caller's observer
 * pass), and what the next dispatch meets. Pure: the policy, what the summary read gave, and the time in.
 */
import { harnessList, type HarnessModule } from '../adapters/index.js';
import type { Policy } from '../contracts/config.js';
import type { BudgetLine, BudgetNote } from '../contracts/decision.js';
import type { Harness } from '../contracts/harness.js';
import { readSpend, readSpendFile } from '../observer/spend-read.js';
import { loadPolicy } from '../config/load.js';
import type { Env } from '../io/paths.js';
import { budgetLines, hasBudget, showUsd, type SpendState } from '../routing-engine/budget.js';
import type { ReadSpend } from '../observer/spend-summary.js';
import { liveReservations, spendStateFrom } from '../observer/spend-summary.js';
import { parseDecimal } from '../prices/decimal.js';

/** How many of the most recently active sessions are listed against the session budget. */
export const SESSIONS_SHOWN = 5;

export type BudgetRow = BudgetLine & {
  /** What the figure covers: today, this month, one harness session. */
  scope: string;
  /** The figure as a share of the budget (0..), null where not reported. */
  share: number | null;
  /** What the next dispatch meets under it. */
  next: string;
};

export type BudgetReport = {
  set: boolean;
  action: Policy['budgets']['action'];
  warnAt: number;
  /** Why the summary could not be used (budgets then fail open at dispatch too). */
  error: string | null;
  /** Children dispatched and not finished: their expected cost, counted in the figures above until they finish. */
  reserved: { children: number; pico: string };
  rows: BudgetRow[];
};

/** Where a session's own cost reaches the dispatch (HarnessModule.sessionCost), in words: "X, Y and Z". */
export function sessionCostSources(modules: Iterable<Pick<HarnessModule, 'sessionCost'>> = harnessList()): string {
  const via = [...modules].flatMap((m) => (m.sessionCost ? [m.sessionCost.via] : []));
  return via.length > 1 ? `${via.slice(0, -1).join(', ')} and ${via.at(-1)}` : (via[0] ?? 'no harness');
}

const IN_PROCESS = sessionCostSources();

/** What happens past a budget, per action: for the heading (`all`) and for the next dispatch (`next`). */
const PAST: Record<Policy['budgets']['action'], { all: string; next: string }> = {
  downshift: { all: 'move subagents to the cheap tier', next: 'the next subagent moves to the cheap tier' },
  deny: { all: 'refuse subagents', next: 'the next subagent is refused' },
  stop: {
    all: 'refuse subagents and stop running ones',
    next: 'the next subagent is refused; running ones stop at their next tool call',
  },
  ask: {
    all: "ask at the harness's permission prompt (refuse where no one can answer)",
    next: 'the next subagent is asked about (refused where no one can answer)',
  },
};
export const pastBudgetText = (action: Policy['budgets']['action']): string => PAST[action].all;

function nextFor(l: BudgetLine, action: Policy['budgets']['action']): string {
  if (l.status === 'not-reported')
    return `checked at each dispatch where the harness reports its session's cost (${IN_PROCESS})`;
  if (l.status === 'over') return PAST[action].next;
  if (l.status === 'warning')
    return l.unknown > 0
      ? 'dispatches proceed; unpriced children make the spend a lower bound'
      : 'dispatches proceed, recorded as budget-warning';
  return 'dispatches proceed';
}

const share = (l: BudgetLine): number | null => {
  if (l.status === 'not-reported') return null;
  const limit = parseDecimal(l.limit);
  return limit === 0n ? null : Number((parseDecimal(l.spent) * 10_000n) / limit) / 10_000;
};

/** The budget rows at `now`: today's and this month's, and each recent session's against the session budget. */
export function budgetReport(policy: Policy, read: ReadSpend, now: number): BudgetReport {
  const b = policy.budgets;
  const held = read.file ? liveReservations(read.file, now) : [];
  const out: BudgetReport = {
    set: hasBudget(b),
    action: b.action,
    warnAt: b.warnAt,
    error: read.error,
    reserved: { children: held.length, pico: held.reduce((a, r) => a + BigInt(r.pico), 0n).toString() },
    rows: [],
  };
  if (!out.set) return out;
  const row = (l: BudgetLine, scope: string): BudgetRow => ({
    ...l,
    scope,
    share: share(l),
    next: nextFor(l, b.action),
  });
  const base: SpendState = spendStateFrom(read, null, null, now);
  const onlyWith = (kinds: ReadonlyArray<BudgetLine['kind']>) => ({
    ...b,
    ...Object.fromEntries(
      (['session', 'day', 'month', 'sessionTotal'] as const)
        .filter((k) => !kinds.includes(k))
        .map((k) => [k, undefined]),
    ),
  });
  for (const l of budgetLines(onlyWith(['day', 'month']), base))
    out.rows.push(row(l, l.kind === 'day' ? 'today' : 'this month'));
  if (b.session !== undefined) {
    const sessions = Object.entries(read.file?.sessions ?? {})
      .sort((x, y) => y[1].last - x[1].last)
      .slice(0, SESSIONS_SHOWN);
    for (const [key, s] of sessions) {
      const state: SpendState = { ...base, session: { pico: BigInt(s.pico), unknown: s.unknown } };
      for (const l of budgetLines(onlyWith(['session']), state)) out.rows.push(row(l, `session ${key}`));
    }
    if (sessions.length === 0)
      out.rows.push(
        row(
          { kind: 'session', limit: b.session, spent: '0', unknown: 0, status: 'ok' },
          'each session (none recorded yet)',
        ),
      );
  }
  for (const l of budgetLines(onlyWith(['sessionTotal']), base)) out.rows.push(row(l, 'each session, parent included'));
  return out;
}

const KIND_LABEL: Record<BudgetLine['kind'], string> = {
  session: 'session',
  sessionTotal: 'session total',
  day: 'day',
  month: 'month',
};

/** One line per budget, for a terminal: "day     $40     $12.30 spent (31%)  today: dispatches proceed". */
export function budgetTextLines(r: BudgetReport): string[] {
  if (!r.set) return [];
  const lines = r.rows.map((l) => {
    const spent =
      l.status === 'not-reported'
        ? 'not known here'
        : `${showUsd(parseDecimal(l.spent) / 1_000_000n)} spent${l.share === null ? '' : ` (${Math.round(l.share * 100)}%)`}${l.unknown > 0 ? `, ${l.unknown} unpriced` : ''}`;
    return `  ${KIND_LABEL[l.kind].padEnd(13)} $${l.limit.padEnd(9)} ${l.status.padEnd(12)} ${spent}; ${l.scope}: ${l.next}`;
  });
  if (r.reserved.children > 0)
    lines.push(
      `  running: ${r.reserved.children} ${r.reserved.children === 1 ? 'child' : 'children'} not finished yet, ${showUsd(BigInt(r.reserved.pico))} reserved (counted above until each finishes)`,
    );
  if (r.error) lines.push(`  spend summary: ${r.error} (budgets are not enforced until it is rewritten)`);
  return lines;
}

/** The budgets as `config check` lists them: the amounts set, the action and the warning point. */
export function budgetPolicyLine(policy: Policy): string {
  const b = policy.budgets;
  if (!hasBudget(b)) return 'budgets: none set';
  const set = (['session', 'sessionTotal', 'day', 'month'] as const)
    .filter((k) => b[k] !== undefined)
    .map((k) => `${KIND_LABEL[k]} $${b[k]}`);
  return (
    `budgets: ${set.join(', ')}; past a budget: ${b.action}; warn at ${Math.round(b.warnAt * 100)}%` +
    (b.sessionTotal !== undefined ? ` (session total only where the harness reports it: ${IN_PROCESS})` : '')
  );
}

/**
 * The spend `tiergate explain` decides with: today's and this month's, as the dispatch would read them (no session:
 * explain is not one, so a session budget shows as not checked). Undefined when no budget is set.
 */
export function explainSpend(policy: Policy, harness: Harness, now: number): SpendState | undefined {
  if (!hasBudget(policy.budgets) || policy.mode === 'off') return undefined;
  return readSpend(process.env, harness, null, now);
}

/** The budget state under an explained decision. */
export function explainBudgetLines(note: BudgetNote): string[] {
  const lines = [`budget: ${note.status} (${note.summary})`];
  for (const l of note.lines) {
    const spent =
      l.status === 'not-reported'
        ? l.kind === 'session'
          ? 'per session, at each dispatch'
          : 'reported by the harness at dispatch'
        : `${l.kind === 'sessionTotal' ? `$${l.spent}` : showUsd(parseDecimal(l.spent) / 1_000_000n)} spent${l.unknown ? `, ${l.unknown} unpriced` : ''}`;
    lines.push(`  ${KIND_LABEL[l.kind].padEnd(13)} $${l.limit.padEnd(9)} ${l.status.padEnd(12)} ${spent}`);
  }
  return lines;
}

/** The budget lines `tiergate report` prints under its table (nothing when no budget is set). */
export function reportBudgetText(env: Env, cwd: string, now = Date.now()): string {
  const r = budgetReport(loadPolicy(env, cwd).policy, readSpendFile(env), now);
  const lines = budgetTextLines(r);
  return lines.length
    ? `\nbudgets (past one: ${pastBudgetText(r.action)}; 'tiergate budget' for more):\n${lines.join('\n')}\n`
    : '';
}

/** The HTML page's data with the daily budget to draw on its cost chart (unchanged when no day budget is set). */
export function withBudget<T extends { budget?: { dayUsd: number } }>(data: T, env: Env, cwd: string): T {
  const day = loadPolicy(env, cwd).policy.budgets.day;
  // A float only to plot; the exact amounts are in the budget lines and `tiergate budget`.
  return day === undefined ? data : { ...data, budget: { dayUsd: Number(day) } };
}
