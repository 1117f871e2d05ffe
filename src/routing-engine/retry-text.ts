/** The exact text a model sees when a dispatch is denied: why, and a retry it can copy. */
import type { Comparison } from '../contracts/decision.js';
import type { Candidate, DispatchObservation } from '../contracts/observation.js';

export function retryLine(obs: DispatchObservation, pick: Candidate | null): string {
  const field = obs.capability.rewriteField ?? (obs.capability.rewriteKind === 'agent' ? 'agent' : 'model');
  if (pick) return `Retry the same dispatch with ${field}: "${pick.value}"${pick.tier ? ` (tier ${pick.tier})` : ''}.`;
  if (obs.capability.rewriteKind === 'model')
    return `Retry the same dispatch without ${field}, so the child runs on the parent's model.`;
  return 'Retry the same dispatch with an agent that runs on a model no pricier than yours.';
}

/** 200000 -> 200,000. Not toLocaleString: its first call loads ICU, 10-15 ms of a hook process (measured, node 20). */
const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function rates(c: Comparison | null): string {
  const pricier = c?.points.find((p) => p.order === 'pricier');
  if (!pricier) return '';
  const at = pricier.atPromptTokens ? ` above ${thousands(pricier.atPromptTokens)} prompt tokens` : '';
  return ` (${pricier.kind} $${pricier.child}/M vs $${pricier.parent}/M${at})`;
}

/** The agent a child was dispatched as, for messages. */
export const agentName = (obs: DispatchObservation): string =>
  obs.requestedAgent ?? obs.subagentType ?? 'the requested agent';

export function denyMessage(obs: DispatchObservation, c: Comparison | null, pick: Candidate | null): string {
  const parent = `your own model ${obs.parentModel ?? '(unknown)'}${rates(c)}`;
  if (!obs.requestedModel && !obs.requestedTier && obs.agentModel) {
    // The model comes from the agent's definition, not from the call: name the agent, so the retry makes sense.
    const agent = agentName(obs);
    const from = obs.agentModelFrom ? ` (from ${obs.agentModelFrom})` : '';
    return `tiergate: agent ${agent} runs on ${obs.agentModel}${from}, which costs more than ${parent}; a subagent may not cost more than its parent. ${retryLine(obs, pick)}`;
  }
  const child =
    obs.requestedModel ?? obs.agentModel ?? obs.requestedAgent ?? obs.requestedTier ?? 'the requested model';
  return `tiergate: subagent model ${child} costs more than ${parent}; a subagent may not cost more than its parent. ${retryLine(obs, pick)}`;
}

export function unknownPriceMessage(obs: DispatchObservation, why: string, pick: Candidate | null): string {
  return `tiergate: ${why}, and this project's policy denies subagents with unknown prices. ${retryLine(obs, pick)}`;
}
