/**
 * The spend summary's entry for one completion (spend-summary.ts), priced by the caller's lookup: shared by the Node
 * writers (spend-record.ts) and Claude Code's hooks module, which counts its own children before the drain does. Kept
 * apart so the dispatch path's reader loads none of the ledger's code.
 */
import type { CompletionObservation } from '../contracts/observation.js';
import { completionKey } from './ledger/store.js';
import type { Pricer } from './pricing.js';
import { sessionKey, type RecentEntry } from './spend-summary.js';

/** The summary entry for a completion: its ledger key (null: none to count it once by), session, end and cost. */
export function spendEntry(obs: CompletionObservation, pricer: Pricer): RecentEntry | null {
  if (!obs.agentId && !obs.callId) return null;
  const priced = obs.usage ? pricer.price(obs.servedModel, obs.harness, obs.usage) : null;
  return {
    k: completionKey(obs.harness, obs.agentId, obs.callId, '', obs.turnId ?? null),
    s: obs.sessionId ? sessionKey(obs.harness, obs.sessionId) : null,
    at: obs.endedAt,
    pico: priced ? priced.picoUsd.toString() : null,
    c: obs.callId,
    m: obs.servedModel,
    a: obs.subagentType,
  };
}
