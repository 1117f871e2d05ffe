/** The model a dispatch ends up on, as recorded in the spool: pure, shared by routeDispatch and the Claude hooks module. */
import type { Decision } from '../contracts/decision.js';
import type { DispatchObservation } from '../contracts/observation.js';

export function effectiveModel(obs: DispatchObservation, d: Decision): string | null {
  // Asked: the child runs as asked if the person approves, or not at all (tiergate does not see the answer).
  if (d.ask) return obs.requestedModel ?? obs.agentModel ?? obs.parentModel;
  if (d.action === 'deny') return null;
  if (d.action === 'correct') return obs.candidates?.find((c) => c.value === d.value)?.model ?? d.value;
  return obs.requestedModel ?? obs.agentModel ?? obs.parentModel;
}
