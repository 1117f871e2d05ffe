/**
 * The decision record (issue 29) from what the decision already computed: the model the child would have run on
 * without tiergate and the link of the resolution chain that gave it, what the decision made of it, and the base rates
 * of both models at decision time. Pure (no Node): routeDispatch and Claude Code's hooks module build the same record.
 */
import type { Policy } from '../contracts/config.js';
import type { Decision } from '../contracts/decision.js';
import type { DecisionDetail, DecisionKind, RateList, WithoutFrom } from '../contracts/decision-record.js';
import type { DispatchObservation } from '../contracts/observation.js';
import type { PriceLookup } from '../contracts/prices.js';
import { effectiveRates } from '../prices/cost.js';
import { childOf } from '../routing-engine/decide.js';
import { effectiveModel } from './effective-model.js';

export function decisionKind(d: Pick<Decision, 'action' | 'reason' | 'ask'>): DecisionKind {
  if (d.ask) return 'ask';
  if (d.reason === 'warn-only') return 'warn';
  if (d.reason === 'budget-denied') return 'budget-deny';
  if (d.reason === 'limit-denied') return 'limit-deny';
  if (d.reason === 'child-stopped') return 'stopped';
  if (d.reason === 'budget-downshifted') return d.action === 'deny' ? 'budget-deny' : 'budget-downshift';
  return d.action;
}

/**
 * agentModelFrom is free text per adapter: a path (agent file), a variable name (Claude Code's
 * CLAUDE_CODE_SUBAGENT_MODEL), or a config entry (`opencode.json agent.<name>`, pi's settings default, a built-in
 * agent's cap). Sorted by its shape.
 */
export function agentLink(from: string | null | undefined): WithoutFrom {
  if (!from) return 'harness-config';
  if (/^[A-Z][A-Z0-9_]+\b/.test(from)) return 'environment';
  // A harness's own config file (Hermes' config.yaml, Codex's and Grok's config.toml) is config, not an agent's file.
  if (/\.(md|toml|ya?ml)\b/i.test(from) && !/settings|opencode\.jsonc?|config\.(jsonc?|toml|ya?ml)\b/i.test(from))
    return 'agent-file';
  return 'harness-config';
}

/** Without tiergate: the call's model, the tier it named, the agent's model, else the parent's. */
export function withoutTiergate(
  obs: DispatchObservation,
  policy: Pick<Policy, 'tiers'>,
): { model: string | null; from: WithoutFrom; source: string | null } {
  const child = childOf(obs, policy as Policy);
  if (child.source === 'call') return { model: child.model, from: 'call', source: null };
  if (child.source === 'tier') return { model: child.model, from: 'tier', source: obs.requestedTier };
  if (child.source === 'agent') {
    const from = obs.agentModelFrom ?? null;
    return { model: child.model, from: agentLink(from), source: from };
  }
  // An agent-kind harness whose agent's model the config does not tell: not the parent's (as decide.ts reads it).
  if (obs.requestedAgent && obs.capability.rewriteKind === 'agent')
    return { model: null, from: 'unknown', source: null };
  return { model: obs.parentModel, from: 'parent', source: obs.parentModelSource };
}

function ratesOf(prices: PriceLookup, model: string | null, harness: DispatchObservation['harness']): RateList | null {
  if (!model) return null;
  const row = prices.resolve(model, harness).price;
  if (!row) return null;
  const r = effectiveRates(row.rates);
  return [r.input, r.output, r.cacheRead, r.cacheWrite5m, r.cacheWrite1h];
}

export function decisionDetail(
  obs: DispatchObservation,
  decision: Decision,
  prices: PriceLookup,
  policy: Pick<Policy, 'tiers'>,
): DecisionDetail {
  const without = withoutTiergate(obs, policy);
  const toModel = effectiveModel(obs, decision);
  const withoutRates = ratesOf(prices, without.model, obs.harness);
  return {
    kind: decisionKind(decision),
    without: without.model,
    withoutFrom: without.from,
    withoutSource: without.source,
    to: decision.action === 'correct' && !decision.ask ? decision.value : null,
    toModel,
    withoutRates,
    chosenRates: toModel === without.model ? withoutRates : ratesOf(prices, toModel, obs.harness),
    budget: decision.budget?.status ?? null,
  };
}

/** The record of a decision the harness never received: it ran the original input, so nothing was changed. */
export function undeliveredDetail(d: DecisionDetail): DecisionDetail {
  return { ...d, kind: 'allow', to: null, toModel: d.without, chosenRates: d.withoutRates };
}
