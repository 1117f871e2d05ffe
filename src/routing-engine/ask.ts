/**
 * Ask instead of deny (issue 33 item 3). Pure: the decision the ceiling, budgets and limits took, the policy, prices
 * and the spend read in; the same decision out, with `ask` set where the policy asks and someone can answer the
 * harness's permission prompt (DispatchObservation.canAsk, read by the adapter). The rest of the decision stays what
 * happens where no one is asked: the correction or the denial, so a harness without a prompt path, or a headless run,
 * acts as if the policy did not ask.
 *
 * What is asked: a child priced above its parent (`onOverCeiling: "ask"`; the ceiling's correction or denial), and a
 * dispatch past a budget (`budgets.action: "ask"`; the budget's denial). Never a fan-out limit, an unknown price or an
 * unmapped tier: the person would be asked about money tiergate cannot state.
 *
 * The message states the money: the child's estimated cost on the model it asked for against the parent's model, from
 * the children recorded (this agent type's median, else this session's; said to be an estimate, or that there is none),
 * the tier tiergate would pick, and the budget when one applies.
 */
import type { Ask, Decision } from '../contracts/decision.js';
import type { DispatchObservation } from '../contracts/observation.js';
import type { Policy } from '../contracts/config.js';
import type { PriceLookup } from '../contracts/prices.js';
import { parseDecimal } from '../prices/decimal.js';
import { lineText, showUsd, type AskBasis, type SpendState } from './budget.js';
import { agentName, retryLine } from './retry-text.js';

/** Whether the policy asks about anything (the dispatch then reads the recorded children for the estimate). */
export const policyAsks = (policy: Pick<Policy, 'onOverCeiling' | 'budgets'>): boolean =>
  policy.onOverCeiling === 'ask' || policy.budgets.action === 'ask';

const CEILING_REASONS: ReadonlySet<string> = new Set(['over-ceiling-corrected', 'over-ceiling-denied']);

/** Which ask a decision is, under `policy`; null when it is not asked about (whoever could answer). */
function askReason(d: Decision, policy: Pick<Policy, 'onOverCeiling' | 'budgets'>): Ask['reason'] | null {
  if (d.action === 'allow') return null;
  if (d.reason === 'budget-denied' && policy.budgets.action === 'ask') return 'budget-asked';
  if (CEILING_REASONS.has(d.reason) && policy.onOverCeiling === 'ask') return 'over-ceiling-asked';
  return null;
}

/**
 * The ask a decision raises: its reason where the policy asks about it and someone can answer the harness's prompt
 * (DispatchObservation.canAsk); null otherwise. What applyAsk attaches, and what the fan-out limits treat as a child
 * that may run (limits.ts).
 */
export const raisedAsk = (
  d: Decision,
  obs: Pick<DispatchObservation, 'canAsk'>,
  policy: Pick<Policy, 'onOverCeiling' | 'budgets'>,
): Ask['reason'] | null => (obs.canAsk === true ? askReason(d, policy) : null);

/** `pico` re-priced from the model it was measured on to `to`, by their input rates; null where either is unpriced. */
function rescale(pico: bigint, from: string | null, to: string | null, obs: DispatchObservation, prices: PriceLookup) {
  if (!from || !to) return null;
  const a = prices.resolve(from, obs.harness).price?.rates.input;
  const b = prices.resolve(to, obs.harness).price?.rates.input;
  if (!a || !b) return null;
  const den = parseDecimal(a);
  return den > 0n ? (pico * parseDecimal(b)) / den : null;
}

const basisText = (b: AskBasis, obs: DispatchObservation): string =>
  b.from === 'agent'
    ? `the median of ${b.n} recorded ${agentName(obs)} ${b.n === 1 ? 'child' : 'children'}`
    : `the median of this session's ${b.n} recorded ${b.n === 1 ? 'child' : 'children'}`;

/** "Estimated: about $0.42 on opus against $0.08 on claude-sonnet-5-5 (…; an estimate)." */
export function estimateLine(
  obs: DispatchObservation,
  prices: PriceLookup,
  requested: string | null,
  basis: AskBasis | null | undefined,
): string {
  if (!basis) return 'No estimate of its cost: no finished child of this agent type or this session is recorded yet.';
  const source = `${basisText(basis, obs)}, served by ${basis.model ?? 'an unrecorded model'}; an estimate`;
  const onRequested = rescale(basis.pico, basis.model, requested, obs, prices);
  const onParent = rescale(basis.pico, basis.model, obs.parentModel, obs, prices);
  if (onRequested === null || onParent === null)
    return `Estimated cost: about ${showUsd(basis.pico)} (${source}; not re-priced to the requested and the parent's model).`;
  return `Estimated cost: about ${showUsd(onRequested)} on ${requested} against ${showUsd(onParent)} on your own model ${obs.parentModel} (${source}).`;
}

/** What tiergate does where no one answers: the correction's value, or the denial's. */
function wouldText(d: Decision): string {
  if (d.action === 'correct') return `tiergate would run it on ${d.value}${d.tier ? ` (tier ${d.tier})` : ''}`;
  return d.tier ? `tiergate would have it retried on the ${d.tier} tier` : 'tiergate would refuse it';
}

/** The line a model acts on where the harness answers the prompt itself, unasked (Copilot CLI's -p: a denial). */
function otherwiseText(d: Decision, obs: DispatchObservation): string {
  if (d.action === 'deny') return d.message;
  if (d.action === 'correct') return retryLine(obs, { value: d.value, model: d.value, tier: null });
  return '';
}

export type AskInput = {
  obs: DispatchObservation;
  policy: Policy;
  prices: PriceLookup;
  /** The model the child runs on as asked (decide.ts childOf), null when it cannot be told. */
  requested: string | null;
  state?: SpendState;
};

/** `d` with `ask` set where the policy asks about it and someone can answer; otherwise `d` itself. */
export function applyAsk(d: Decision, input: AskInput): Decision {
  const { obs, policy, prices, requested, state } = input;
  const reason = raisedAsk(d, obs, policy);
  if (!reason) return d;
  const why =
    reason === 'budget-asked'
      ? `${(d.budget?.lines ?? [])
          .filter((l) => l.status === 'over')
          .map(lineText)
          .join(' and ')} is spent`
      : `subagent model ${requested ?? 'the requested model'} costs more than your own model ${obs.parentModel ?? '(unknown)'}`;
  const budget =
    reason === 'over-ceiling-asked' && d.budget && d.budget.lines.length
      ? ` Budgets: ${d.budget.lines.map(lineText).join('; ')}.`
      : '';
  const message = `tiergate asks: ${why}. ${estimateLine(obs, prices, requested, state?.askBasis)} ${wouldText(d)}.${budget} Approve to run it as asked on ${requested ?? 'the requested model'}; refuse to keep the cost down.`;
  return { ...d, ask: { reason, message, otherwise: otherwiseText(d, obs) } };
}
