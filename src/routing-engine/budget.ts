/**
 * Spend budgets at dispatch. Pure: the decision the ceiling rule took, the policy, prices and the spend so far in; the
 * decision the budgets allow out. No I/O, no clock: the caller reads the spend (observer/spend-summary.ts) and says
 * which day and month it belongs to.
 *
 * Arithmetic is exact: amounts are decimal strings, spend is pico-USD, everything is compared in 1e-18 USD (the
 * fixed point of prices/decimal.ts). Children recorded without a price count as unknown, never as $0: they can only
 * raise a warning (the spend is then a lower bound), and a spend already past a budget is past it whatever they cost.
 *
 * Past a budget, `downshift` moves the child to the cheap tier, but never to a model priced above the one it would
 * have run on (point by point, as the ceiling compares): already there or cheaper, it runs unchanged; not comparable,
 * it is denied rather than guessed. Where the harness takes no rewrite the deny's retry names the cheap choice.
 */
import type { BudgetLine, BudgetNote, Decision } from '../contracts/decision.js';
import type { Candidate, DispatchObservation } from '../contracts/observation.js';
import type { Policy } from '../contracts/config.js';
import type { PriceLookup } from '../contracts/prices.js';
import { formatUsd, numberToDecimal, parseDecimal, picoToUsd } from '../prices/decimal.js';
import { comparePrices, withinCeiling } from './compare.js';
import { retryLine } from './retry-text.js';

export type SpendFigure = { pico: bigint; unknown: number };

/** The spend the budgets are checked against, for one dispatch. */
export type SpendState = {
  /** This harness session's subagent spend; null when the dispatch has no session id. */
  session: SpendFigure | null;
  /** Every harness's subagent spend in the user's current local calendar day / month. */
  day: SpendFigure;
  month: SpendFigure;
  /** The harness's own figure for the whole session (parent included), USD decimal; null where it reports none. */
  sessionTotal: string | null;
  /** Why the spend could not be read: the budgets are then not enforced for this dispatch (fail open, diagnosed). */
  error: string | null;
  /**
   * This session's children (routing-engine/limits.ts): running (dispatched, not yet reported ended, not expired) and
   * started in all. Absent where nothing was read for the limits.
   */
  fanout?: { running: number; started: number };
  /**
   * What this child is expected to cost, pico-USD, from the children recorded (spend-summary.ts estimateCost: this
   * session's, else this agent type's median, …); null: nothing to go by; absent: not worked out.
   */
  estimate?: bigint | null;
  /** What an ask's estimate is drawn from (spend-summary.ts askBasis); null: nothing recorded; absent: not read. */
  askBasis?: AskBasis | null;
};

/** The median-cost priced child of this agent type (`agent`), else of this session: its cost, model and count. */
export type AskBasis = { pico: bigint; model: string | null; from: 'agent' | 'session'; n: number };

export type BudgetKind = BudgetLine['kind'];
export const BUDGET_KINDS: readonly BudgetKind[] = ['session', 'sessionTotal', 'day', 'month'];
type Budgets = Policy['budgets'];

/** Whether any budget is set (an amount; `action` and `warnAt` alone enforce nothing). */
export const hasBudget = (b: Budgets | undefined): boolean =>
  !!b && (b.session !== undefined || b.day !== undefined || b.month !== undefined || b.sessionTotal !== undefined);

const ATTO_PER_PICO = 1_000_000n;
const ATTO_PER_USD = 10n ** 18n;

/** USD for people: cents from $1 up, four places below (a child costs fractions of a cent). Exact rounding. */
export function showUsd(pico: bigint): string {
  return `$${formatUsd(pico, pico >= 1_000_000_000_000n ? 2 : 4)}`;
}
const showLimit = (limit: string): string => `$${limit}`;

function spentOf(kind: BudgetKind, state: SpendState): { atto: bigint; text: string; unknown: number } | null {
  if (kind === 'sessionTotal') {
    if (state.sessionTotal === null) return null;
    try {
      return { atto: parseDecimal(state.sessionTotal), text: state.sessionTotal, unknown: 0 };
    } catch {
      return null; // not a decimal: the harness's figure is not used (not-reported), never guessed
    }
  }
  const f = state[kind];
  if (!f) return null;
  return { atto: f.pico * ATTO_PER_PICO, text: picoToUsd(f.pico), unknown: f.unknown };
}

/** Each budget set, against its spend. */
export function budgetLines(budgets: Budgets, state: SpendState): BudgetLine[] {
  const warnAt = parseDecimal(numberToDecimal(budgets.warnAt) ?? '1');
  const out: BudgetLine[] = [];
  for (const kind of BUDGET_KINDS) {
    const limit = budgets[kind];
    if (limit === undefined) continue;
    const spent = spentOf(kind, state);
    if (!spent) {
      out.push({ kind, limit, spent: '0', unknown: 0, status: 'not-reported' });
      continue;
    }
    const cap = parseDecimal(limit);
    const status =
      spent.atto >= cap ? 'over' : spent.atto >= (cap * warnAt) / ATTO_PER_USD || spent.unknown > 0 ? 'warning' : 'ok';
    out.push({ kind, limit, spent: spent.text, unknown: spent.unknown, status });
  }
  return out;
}

const LABEL: Record<BudgetKind, string> = {
  session: 'session',
  sessionTotal: 'session total',
  day: 'daily',
  month: 'monthly',
};
const RENEWS: Record<BudgetKind, string> = {
  session: 'start a new session',
  sessionTotal: 'start a new session',
  day: 'wait for tomorrow',
  month: 'wait for next month',
};

/** "the daily budget of $40 ($41.20 spent, 2 children unpriced)". */
export function lineText(l: BudgetLine): string {
  const spent = l.kind === 'sessionTotal' ? `$${l.spent}` : showUsd(parseDecimal(l.spent) / ATTO_PER_PICO);
  const unknown = l.unknown > 0 ? `, ${l.unknown} ${l.unknown === 1 ? 'child' : 'children'} unpriced` : '';
  return `the ${LABEL[l.kind]} budget of ${showLimit(l.limit)} (${spent} spent${unknown})`;
}

const join = (parts: string[]): string =>
  parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;

export function budgetNote(budgets: Budgets, state: SpendState): BudgetNote {
  if (state.error !== null) return { status: 'unknown', lines: [], summary: `budgets not checked: ${state.error}` };
  const lines = budgetLines(budgets, state);
  const over = lines.filter((l) => l.status === 'over');
  const warn = lines.filter((l) => l.status === 'warning');
  if (over.length) return { status: 'over', lines, summary: `over ${join(over.map(lineText))}` };
  if (warn.length) return { status: 'warning', lines, summary: `near ${join(warn.map(lineText))}` };
  return { status: 'ok', lines, summary: 'within every budget' };
}

/** This child's estimate as a message states it; '' where none was worked out. */
export function estimateText(state: SpendState): string {
  if (state.estimate === undefined) return '';
  return state.estimate === null
    ? 'No estimate for this child yet (no finished child to go by).'
    : `This child is estimated at ${showUsd(state.estimate)} (from the children recorded so far: an estimate).`;
}

/** The advice every budget message ends with: how to go on. */
function howToGoOn(over: BudgetLine[]): string {
  const keys = join(over.map((l) => `budgets.${l.kind}`));
  const renew = [...new Set(over.map((l) => RENEWS[l.kind]))].join(' or ');
  return `To go on, raise ${keys} in your tiergate config ('tiergate budget' shows every budget) or ${renew}.`;
}

export type BudgetInput = {
  obs: DispatchObservation;
  policy: Policy;
  prices: PriceLookup;
  /** The choices a correction may name, most capable first (decide.ts candidatesFor). */
  candidates: Candidate[];
  /** The model the child runs on under `decision` (null: cannot tell). */
  runsOn: string | null;
};

/** The decision with the budgets applied. `state` is for this dispatch's session, day and month. */
export function applyBudget(decision: Decision, input: BudgetInput, state: SpendState): Decision {
  const { obs, policy, prices } = input;
  const budgets = policy.budgets;
  const note = budgetNote(budgets, state);
  if (note.status === 'unknown') {
    return { ...decision, budget: note, diagnostics: [...decision.diagnostics, note.summary] };
  }
  const base = { ...decision, budget: note };
  if (note.status === 'warning') {
    return decision.action === 'allow'
      ? { ...base, reason: 'budget-warning', summary: `${decision.summary}; ${note.summary}` }
      : base;
  }
  if (note.status === 'ok') return base;

  const over = note.lines.filter((l) => l.status === 'over');
  const spent = `tiergate: ${join(over.map(lineText))} is spent`;
  const common = { comparison: decision.comparison, diagnostics: decision.diagnostics, budget: note };
  const denied = (why: string): Decision => ({
    ...common,
    action: 'deny',
    reason: 'budget-denied',
    tier: null,
    summary: `${note.summary}; denied`,
    message: [`${spent}; ${why}.`, howToGoOn(over), estimateText(state)].filter(Boolean).join(' '),
  });
  // `ask` acts as deny where no one is asked (ask.ts sets the prompt over this denial where someone can answer).
  if (budgets.action !== 'downshift') return denied('no more subagents run under it');
  // Already refused by the ceiling: a deny is the cheapest outcome there is; its own retry stands.
  if (decision.action === 'deny') return base;

  const cheap = input.candidates.find((c) => c.tier === 'cheap');
  if (!cheap)
    return denied(
      `subagents would move to the cheap tier, and none is configured for ${obs.harness} (tiers.${obs.harness}.cheap)`,
    );
  const stay = (why: string): Decision => ({
    ...decision,
    budget: note,
    reason: 'budget-downshifted',
    summary: `${note.summary}; ${why}`,
  });
  if (input.runsOn === null)
    return denied(
      `the child's model cannot be told, so it cannot be moved to the cheap tier without risking a higher cost`,
    );
  const from = prices.resolve(input.runsOn, obs.harness);
  const to = prices.resolve(cheap.model, obs.harness);
  if (from.id !== null && from.id === to.id) return stay(`the child already runs on the cheap tier (${cheap.value})`);
  const cmp = comparePrices(from, to, prices.catalogDate);
  if (cmp.verdict === 'unknown')
    return denied(
      `the cheap tier (${cheap.value}) cannot be priced against the child's ${input.runsOn}, so moving it could raise a cost`,
    );
  // The cheap tier costs more on some rate than what the child runs on: moving it would raise a cost.
  if (!withinCeiling(cmp))
    return stay(`${input.runsOn} is no pricier than the cheap tier (${cheap.value}); allowed unchanged`);

  const field = obs.capability.rewriteField;
  if (obs.capability.canRewrite && field) {
    return {
      ...common,
      action: 'correct',
      reason: 'budget-downshifted',
      tier: 'cheap',
      summary: `${note.summary}; moved to the cheap tier: ${field} = ${cheap.value}`,
      field,
      value: cheap.value,
      updatedInput: { ...obs.toolInput, [field]: cheap.value },
    };
  }
  return {
    ...common,
    action: 'deny',
    reason: 'budget-downshifted',
    tier: 'cheap',
    summary: `${note.summary}; denied with a retry on the cheap tier (${cheap.value})`,
    message: [
      `${spent}; from here subagents run on the cheap tier.`,
      retryLine(obs, cheap),
      howToGoOn(over),
      estimateText(state),
    ]
      .filter(Boolean)
      .join(' '),
  };
}
