/**
 * PLACEHOLDER until the lead's routeDispatch lands on main (same signature); on merge, take main's version.
 * Loads policy and prices (cached per process), decides, appends the dispatch to the spool; never throws.
 */
import type { Decision } from '../contracts/decision.js';
import type { Catalog } from '../contracts/prices.js';
import type { DispatchObservation } from '../contracts/observation.js';
import { loadPolicy } from '../config/load.js';
import { decide } from '../routing-engine/decide.js';
import { createPriceLookup } from '../prices/lookup.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { appendSpool } from '../observer/spool.js';
import snapshot from '../../data/prices-snapshot.json';

export function routeDispatch(obs: DispatchObservation, env: Env = process.env): Decision {
  let decision: Decision;
  try {
    const { policy, diagnostics } = loadPolicy(env, obs.cwd);
    const prices = createPriceLookup([snapshot as unknown as Catalog], { claudeProvider: policy.claudeProvider });
    decision = decide(obs, policy, prices);
    for (const d of [...diagnostics, ...decision.diagnostics]) diagnose('warn', `dispatch:${obs.harness}`, d, {}, env);
    const effective = decision.action === 'correct' ? decision.value : obs.requestedModel;
    appendSpool({
      type: 'dispatch', observation: obs,
      decision: { action: decision.action, reason: decision.reason, tier: decision.tier,
        effectiveModel: effective ? (prices.resolve(effective, obs.harness).id ?? effective) : obs.parentModel, catalogVersion: prices.catalogVersion },
    }, env);
  } catch (err) {
    diagnose('error', `dispatch:${obs.harness}`, errorText(err), {}, env);
    decision = { action: 'allow', reason: 'internal-error', summary: 'internal error; allowed', comparison: null, tier: null, diagnostics: [] };
  }
  return decision;
}
