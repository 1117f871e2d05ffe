/**
 * The routing decision. Pure: the observation, the policy and a price lookup in, a decision out. No I/O, no clock.
 *
 * Rule: a child may never cost more than its parent (the parent ceiling). An over-ceiling request is corrected to the
 * most capable legal choice within the ceiling (the parent's own tier first) where the harness honours a rewrite,
 * otherwise denied with a retry that names that choice. Unknown prices follow policy.unknownPrice (allow by default).
 *
 * The decision is taken on the model the child would really run on without tiergate (childOf): the call's model, else
 * the agent definition's, else the parent's. A cost guard never raises a cost: a correction only happens when that
 * model is priced above the parent (so any pick within the ceiling is cheaper than it), and the default tier only
 * replaces an inherited parent model, never an agent's own, and only with one priced at or below the parent.
 */
import type { Tier } from '../contracts/harness.js';
import type { Comparison, Decision, ReasonCode } from '../contracts/decision.js';
import type { Candidate, DispatchObservation } from '../contracts/observation.js';
import type { Policy } from '../contracts/config.js';
import type { PriceLookup, Resolution } from '../contracts/prices.js';
import { comparePrices, withinCeiling } from './compare.js';
import { agentName, denyMessage, unknownPriceMessage } from './retry-text.js';
import { applyBudget, hasBudget, type SpendState } from './budget.js';
import { applyLimits, moneyText } from './limits.js';
import { applyAsk } from './ask.js';

// Kept importable from here for the callers that still name them so; they live in src/contracts.
export type { Candidate, PriceLookup };

/** Most capable first: a correction keeps as much of the requested capability as the ceiling allows. */
const TIER_PREFERENCE: Tier[] = ['parent', 'premium', 'standard', 'cheap'];

/** The choices a correction or a retry may name, in preference order, each with the model it runs on. */
export function candidatesFor(obs: DispatchObservation, policy: Policy, prices: PriceLookup): Candidate[] {
  if (obs.candidates) {
    const rank = (t: Tier | null) => (t === null ? TIER_PREFERENCE.length : TIER_PREFERENCE.indexOf(t));
    return [...obs.candidates].sort((a, b) => rank(a.tier) - rank(b.tier));
  }
  const map = policy.tiers[obs.harness];
  const legal = obs.capability.legalValues;
  const out: Candidate[] = [];
  for (const tier of TIER_PREFERENCE) {
    let model = tier === 'parent' ? (map.parent ?? obs.parentModel) : map[tier];
    if (!model) continue;
    if (tier === 'parent' && legal !== null && !legal.includes(model)) {
      // The parent's full id is not a legal value (Claude takes aliases only): use the alias that resolves to it.
      const parentId = prices.resolve(model, obs.harness).id;
      model = legal.find((v) => parentId !== null && prices.resolve(v, obs.harness).id === parentId) ?? model;
    }
    // Where the field names a model, the tier's model is the value; an agent-kind harness needs explicit candidates.
    if (obs.capability.rewriteKind === 'model') out.push({ value: model, model, tier });
  }
  return out.filter((c) => legal === null || legal.includes(c.value));
}

/** Where the model a child runs on without tiergate comes from. */
export type ChildSource = 'tier' | 'call' | 'agent' | 'inherited';

/**
 * The model the child runs on without tiergate, and where that comes from: a requested tier, the call's model, the
 * agent definition's model (or a harness default the adapter found), else the parent's (inherited: model null here).
 */
export function childOf(obs: DispatchObservation, policy: Policy): { model: string | null; source: ChildSource } {
  if (obs.requestedTier) {
    const map = policy.tiers[obs.harness];
    return {
      model: obs.requestedTier === 'parent' ? (map.parent ?? obs.parentModel) : (map[obs.requestedTier] ?? null),
      source: 'tier',
    };
  }
  if (obs.requestedModel) return { model: obs.requestedModel, source: 'call' };
  if (obs.agentModel) return { model: obs.agentModel, source: 'agent' };
  return { model: null, source: 'inherited' };
}

type Ctx = { obs: DispatchObservation; policy: Policy; prices: PriceLookup; diagnostics: string[] };

function allow(
  reason: ReasonCode,
  summary: string,
  comparison: Comparison | null,
  tier: string | null,
  ctx: Ctx,
): Decision {
  return { action: 'allow', reason, summary, comparison, tier, diagnostics: ctx.diagnostics };
}

/**
 * Picks the first candidate priced within the parent ceiling and, when the child's own price is known, within the
 * child's too: prices are compared point by point, so with a crossover (cheaper input, pricier output) the parent's
 * own model can cost more than the child on some point, and switching to it would raise a cost.
 */
function firstWithinCeiling(
  ctx: Ctx,
  parent: Resolution,
  child: Resolution | null = null,
): { cand: Candidate; comparison: Comparison } | null {
  for (const cand of candidatesFor(ctx.obs, ctx.policy, ctx.prices)) {
    const res = ctx.prices.resolve(cand.model, ctx.obs.harness);
    const comparison = comparePrices(parent, res, ctx.prices.catalogDate);
    if (!withinCeiling(comparison)) continue;
    if (child?.price && !withinCeiling(comparePrices(child, res, ctx.prices.catalogDate))) continue;
    return { cand, comparison };
  }
  return null;
}

/** Correct where the harness honours it; otherwise deny and name the choice in the retry. */
function correctOrDeny(
  ctx: Ctx,
  reasonIfCorrected: ReasonCode,
  why: string,
  comparison: Comparison | null,
  parent: Resolution,
): Decision {
  const { obs } = ctx;
  const pick = firstWithinCeiling(ctx, parent, comparison?.child ?? null);
  if (pick && obs.capability.canRewrite && obs.capability.rewriteField) {
    const field = obs.capability.rewriteField;
    return {
      action: 'correct',
      reason: reasonIfCorrected,
      summary: `${why}; corrected ${field} to ${pick.cand.value}`,
      // The comparison that triggered the correction; the chosen value's own fit is in the summary.
      comparison: comparison ?? pick.comparison,
      tier: pick.cand.tier,
      diagnostics: ctx.diagnostics,
      field,
      value: pick.cand.value,
      updatedInput: { ...obs.toolInput, [field]: pick.cand.value },
    };
  }
  return {
    action: 'deny',
    reason: 'over-ceiling-denied',
    summary: `${why}; denied`,
    comparison,
    tier: pick?.cand.tier ?? null,
    diagnostics: ctx.diagnostics,
    message: denyMessage(obs, comparison, pick?.cand ?? null),
  };
}

function decideInner(ctx: Ctx): Decision {
  const { obs, policy, prices } = ctx;
  const parent = prices.resolve(obs.parentModel ?? '', obs.harness);
  const { model: childName, source } = childOf(obs, policy);

  if (childName === null) {
    if (obs.requestedAgent && obs.capability.rewriteKind === 'agent' && !obs.requestedTier) {
      // An agent whose model the harness config does not tell us: what it would run on is unknown, so any tier agent
      // tiergate switched it to could cost more. Treated as an unknown price (allowed and logged by default).
      const why = `agent '${obs.requestedAgent}' runs on a model tiergate cannot tell`;
      ctx.diagnostics.push(why);
      if (policy.unknownPrice === 'deny') {
        const pick = parent.price ? firstWithinCeiling(ctx, parent) : null;
        return {
          action: 'deny',
          reason: 'unknown-price-denied',
          summary: `${why}; policy denies unknown prices`,
          comparison: null,
          tier: null,
          diagnostics: ctx.diagnostics,
          message: unknownPriceMessage(obs, why, pick?.cand ?? null),
        };
      }
      return allow('unknown-tier', `${why}; allowed`, null, null, ctx);
    }
    if (obs.requestedTier) {
      ctx.diagnostics.push(`tier '${obs.requestedTier}' is not mapped for ${obs.harness}`);
      return correctOrDeny(ctx, 'unknown-tier', `tier '${obs.requestedTier}' is not configured`, null, parent);
    }
    // No model named and no agent model: the child inherits the parent. The default tier applies, capped by the
    // ceiling (the next cheaper tier that fits), so it can only move the child down from the parent's model.
    if (obs.capability.canRewrite && obs.capability.rewriteKind === 'model' && policy.defaultTier !== 'parent') {
      const from = TIER_PREFERENCE.indexOf(policy.defaultTier);
      for (const cand of candidatesFor(obs, policy, prices)) {
        if (cand.tier === null || TIER_PREFERENCE.indexOf(cand.tier) < from) continue;
        const comparison = comparePrices(parent, prices.resolve(cand.model, obs.harness), prices.catalogDate);
        if (!withinCeiling(comparison)) continue;
        const field = obs.capability.rewriteField!;
        return {
          action: 'correct',
          reason: 'default-tier-applied',
          summary: `no model named; tier ${cand.tier} (${cand.value}) applied (default ${policy.defaultTier}, capped by the parent)`,
          comparison,
          tier: cand.tier,
          diagnostics: ctx.diagnostics,
          field,
          value: cand.value,
          updatedInput: { ...obs.toolInput, [field]: cand.value },
        };
      }
    }
    return allow('inherits-parent', "no model named; the child runs on the parent's model", null, 'parent', ctx);
  }

  const child = prices.resolve(childName, obs.harness);
  const comparison = comparePrices(parent, child, prices.catalogDate);
  const tier = obs.requestedTier ?? candidatesFor(obs, policy, prices).find((c) => c.model === childName)?.tier ?? null;

  if (comparison.verdict === 'unknown') {
    const which = [!parent.price && `parent ${obs.parentModel ?? '(unknown)'}`, !child.price && `child ${childName}`]
      .filter(Boolean)
      .join(' and ');
    const notComparable = parent.price && child.price;
    const reasonText = notComparable
      ? 'per-request or reasoning fees make the prices not comparable'
      : `no price for ${which}`;
    ctx.diagnostics.push(reasonText);
    if (policy.unknownPrice === 'deny') {
      const pick = parent.price ? firstWithinCeiling(ctx, parent) : null;
      return {
        action: 'deny',
        reason: 'unknown-price-denied',
        summary: `${reasonText}; policy denies unknown prices`,
        comparison,
        tier,
        diagnostics: ctx.diagnostics,
        message: unknownPriceMessage(obs, reasonText, pick?.cand ?? null),
      };
    }
    return allow(
      notComparable ? 'not-comparable' : 'unknown-price-allowed',
      `${reasonText}; allowed by policy`,
      comparison,
      tier,
      ctx,
    );
  }

  const named = source === 'agent' ? `agent ${agentName(obs)} runs on ${childName}, which` : childName;
  if (withinCeiling(comparison)) {
    return allow(
      'within-ceiling',
      `${named} is ${comparison.verdict === 'equal' ? 'priced the same as' : 'cheaper than'} the parent ${obs.parentModel}`,
      comparison,
      tier,
      ctx,
    );
  }
  return correctOrDeny(
    ctx,
    'over-ceiling-corrected',
    `${named} costs more than the parent ${obs.parentModel}`,
    comparison,
    parent,
  );
}

/** The model the child runs on under `d`: the correction's choice, else what it would run on without tiergate. */
function runsOn(obs: DispatchObservation, policy: Policy, d: Decision): string | null {
  if (d.action === 'correct') return obs.candidates?.find((c) => c.value === d.value)?.model ?? d.value;
  const child = childOf(obs, policy);
  if (child.model !== null) return child.model;
  // An unmapped tier, or an agent whose model the config does not tell: not the parent's, and not known.
  if (child.source === 'tier' || (obs.requestedAgent && obs.capability.rewriteKind === 'agent')) return null;
  return obs.parentModel;
}

/**
 * The budget part, apart from the price ceiling's: a fault in it (a value or a spend it cannot handle) fails open for
 * the budgets only, diagnosed, and the ceiling's decision stands. Issue 28: a throw here used to allow the dispatch.
 */
function withBudget(
  ceiling: Decision,
  obs: DispatchObservation,
  policy: Policy,
  prices: PriceLookup,
  spend: SpendState | undefined,
): Decision {
  try {
    if (!spend || !hasBudget(policy.budgets)) return ceiling;
    return applyBudget(
      ceiling,
      { obs, policy, prices, candidates: candidatesFor(obs, policy, prices), runsOn: runsOn(obs, policy, ceiling) },
      spend,
    );
  } catch (err) {
    const summary = `budgets not checked: ${budgetFault(err)}`;
    return {
      ...ceiling,
      budget: { status: 'unknown', lines: [], summary },
      diagnostics: [...ceiling.diagnostics, summary],
    };
  }
}

/**
 * The fan-out limits (limits.ts), counted where `spend.fanout` was read: a fault in them fails open for the limits only
 * (diagnosed), and the ceiling's and budgets' decision stands.
 */
function withLimits(
  decision: Decision,
  obs: DispatchObservation,
  policy: Policy,
  spend: SpendState | undefined,
): Decision {
  return failOpen(decision, 'limits not checked', () => (spend ? applyLimits(decision, obs, policy, spend) : decision));
}

/** `step()`, or `decision` with a diagnostic saying what was not done and why when it throws. */
function failOpen(decision: Decision, what: string, step: () => Decision): Decision {
  try {
    return step();
  } catch (err) {
    return { ...decision, diagnostics: [...decision.diagnostics, `${what}: ${budgetFault(err)}`] };
  }
}

/**
 * Every refusal the model reads states the money (issue 33 item 4) where the spend was read (a budget or a limit is
 * set): a ceiling's or an unknown price's denial gets the session's spend so far, the budgets and this child's
 * estimate after its retry; the budget's and the limits' own messages already say them. Without a budget or a limit
 * no spend is read at dispatch (it stays free), and the ceiling's message states the two models' rates.
 */
function withMoney(decision: Decision, policy: Policy, spend: SpendState | undefined): Decision {
  if (!spend || spend.error !== null || decision.action !== 'deny') return decision;
  if (
    decision.reason === 'budget-denied' ||
    decision.reason === 'limit-denied' ||
    decision.reason === 'budget-downshifted'
  )
    return decision;
  return failOpen(decision, 'money not stated', () => ({
    ...decision,
    message: `${decision.message} Money: ${moneyText(policy, spend)}`,
  }));
}

/**
 * The ask (ask.ts) where the policy asks and someone can answer: a fault in it fails open to the decision without the
 * prompt (diagnosed), which is what a run with no one to ask gets.
 */
function withAsk(
  decision: Decision,
  obs: DispatchObservation,
  policy: Policy,
  prices: PriceLookup,
  spend: SpendState | undefined,
): Decision {
  return failOpen(decision, 'not asked', () =>
    applyAsk(decision, { obs, policy, prices, requested: childOf(obs, policy).model, state: spend }),
  );
}

/** A fault's message, bounded: it may quote the value that caused it. */
function budgetFault(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/**
 * `spend`: the spend so far, for a policy that sets a budget (budget.ts; the caller reads it, the engine stays pure).
 * Absent: no budget is checked.
 */
export function decide(obs: DispatchObservation, policy: Policy, prices: PriceLookup, spend?: SpendState): Decision {
  if (policy.mode === 'off') {
    return {
      action: 'allow',
      reason: 'guard-off',
      summary: 'guard is off',
      comparison: null,
      tier: null,
      diagnostics: [],
    };
  }
  const decision = withAsk(
    withMoney(
      withLimits(
        withBudget(decideInner({ obs, policy, prices, diagnostics: [] }), obs, policy, prices, spend),
        obs,
        policy,
        spend,
      ),
      policy,
      spend,
    ),
    obs,
    policy,
    prices,
    spend,
  );
  if (policy.mode === 'warn' && decision.action !== 'allow') {
    return {
      action: 'allow',
      reason: 'warn-only',
      summary: `warn mode: would have ${decision.action === 'deny' ? 'denied' : 'corrected'} (${decision.summary})`,
      comparison: decision.comparison,
      tier: decision.tier,
      diagnostics: [...decision.diagnostics, `warn-only: ${decision.reason}`],
      ...(decision.budget ? { budget: decision.budget } : {}),
    };
  }
  return decision;
}
