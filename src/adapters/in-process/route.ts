/**
 * The in-process adapters' door to the shared dispatch path. Stand-in until src/runtime/dispatch.ts (routeDispatch)
 * lands on main: decide() with the loaded policy and a lookup over policy.priceOverrides only, plus the spool line.
 * Replace the body with `export { routeDispatch } from '../../runtime/dispatch.js'` after the merge.
 */
import type { Decision } from '../../contracts/decision.js';
import type { Harness } from '../../contracts/harness.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import type { Resolution } from '../../contracts/prices.js';
import { loadPolicy } from '../../config/load.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import type { Env } from '../../io/paths.js';
import { appendSpool } from '../../observer/spool.js';
import { decide, type PriceLookup } from '../../routing-engine/decide.js';

function overridesLookup(overrides: Record<string, { input: string; output: string; cacheRead?: string | null; cacheWrite5m?: string | null; cacheWrite1h?: string | null }>): PriceLookup {
  return {
    catalogDate: 'overrides',
    catalogVersion: 'override',
    resolve(name: string, _h: Harness): Resolution {
      const r = overrides[name];
      if (!r) return { query: name, id: null, how: 'unknown', note: null, price: null, catalogVersion: null };
      return {
        query: name, id: name, how: 'exact', note: null, catalogVersion: 'override',
        price: { id: name, provider: 'override', rates: { input: r.input, output: r.output, cacheRead: r.cacheRead ?? null, cacheWrite5m: r.cacheWrite5m ?? null, cacheWrite1h: r.cacheWrite1h ?? null },
          longContext: [], perRequestFee: null, reasoningRate: null, contextWindow: null, source: 'override' },
      };
    },
  };
}

export function routeDispatch(obs: DispatchObservation, env: Env = process.env): Decision {
  let decision: Decision;
  try {
    const { policy, diagnostics } = loadPolicy(env, obs.cwd);
    decision = decide(obs, policy, overridesLookup(policy.priceOverrides));
    for (const d of [...diagnostics, ...decision.diagnostics]) diagnose('warn', `dispatch:${obs.harness}`, d, { reason: decision.reason }, env);
  } catch (err) {
    diagnose('error', `dispatch:${obs.harness}`, errorText(err), { callId: obs.callId }, env);
    decision = { action: 'allow', reason: 'within-ceiling', summary: 'tiergate failed; dispatch allowed', comparison: null, tier: null, diagnostics: [errorText(err)] };
  }
  try {
    appendSpool({ type: 'dispatch', observation: obs, decision: { action: decision.action, reason: decision.reason, tier: decision.tier,
      effectiveModel: decision.action === 'correct' ? (obs.candidates?.find((c) => c.value === decision.value)?.model ?? decision.value) : null, catalogVersion: 'override' } }, env);
  } catch (err) {
    diagnose('error', 'spool', errorText(err), { callId: obs.callId }, env);
  }
  return decision;
}
