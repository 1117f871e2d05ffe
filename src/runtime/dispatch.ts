/**
 * The one call every adapter makes at dispatch: policy + prices (loaded once per process), the pure decision, the
 * diagnostics, and a spool line for the ledger. Never throws: tiergate's own failure is an allow plus a diagnostic.
 */
import type { Decision } from '../contracts/decision.js';
import type { DispatchObservation } from '../contracts/observation.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { appendSpool } from '../observer/spool.js';
import { decide } from '../routing-engine/decide.js';
import { loadRuntime } from './context.js';

export function effectiveModel(obs: DispatchObservation, d: Decision): string | null {
  if (d.action === 'deny') return null;
  if (d.action === 'correct') return obs.candidates?.find((c) => c.value === d.value)?.model ?? d.value;
  return obs.requestedModel ?? obs.agentModel ?? obs.parentModel;
}

export function routeDispatch(obs: DispatchObservation, env: Env = process.env): Decision {
  let decision: Decision;
  let catalogVersion: string | null = null;
  try {
    const rt = loadRuntime(env, obs.cwd);
    catalogVersion = rt.prices.catalogVersion;
    decision = decide(obs, rt.policy, rt.prices);
    for (const d of [...rt.policyDiagnostics, ...decision.diagnostics]) {
      diagnose('warn', `dispatch:${obs.harness}`, d, { reason: decision.reason, callId: obs.callId }, env);
    }
  } catch (err) {
    diagnose('error', `dispatch:${obs.harness}`, errorText(err), { callId: obs.callId }, env);
    decision = { action: 'allow', reason: 'internal-error', summary: 'tiergate failed; dispatch allowed', comparison: null, tier: null, diagnostics: [errorText(err)] };
  }
  try {
    appendSpool({
      type: 'dispatch',
      observation: obs,
      decision: { action: decision.action, reason: decision.reason, tier: decision.tier, effectiveModel: effectiveModel(obs, decision), catalogVersion },
    }, env);
  } catch (err) {
    diagnose('error', 'spool', errorText(err), { callId: obs.callId }, env);
  }
  return decision;
}
