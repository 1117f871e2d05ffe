/** Copilot CLI preToolUse[task] -> DispatchObservation. Thin and pure: the caller read the session file and the agents. */
import type { Capability } from '../../contracts/harness.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import { extractEscalation } from '../../observer/outcome.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import type { CopilotChild } from './agents.js';
import type { DispatchContext } from './parent-model.js';
import type { DispatchPayload } from './dispatch-payload.js';

export const COPILOT_CAPABILITY: Capability = DESCRIPTORS.copilot.capability({});
/** Where what Copilot will run is unknown: no rewrite at all, since a default tier written over it could raise the cost. */
const NO_REWRITE: Capability = { ...COPILOT_CAPABILITY, canRewrite: false, rewriteField: null };

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export function observeTask(
  p: DispatchPayload,
  ctx: DispatchContext,
  child: CopilotChild,
  at: number,
): DispatchObservation {
  const args = p.toolArgs;
  return {
    kind: 'dispatch',
    harness: 'copilot',
    sessionId: p.sessionId,
    callId: ctx.callId,
    parentModel: ctx.parentModel,
    parentModelSource: ctx.source,
    requestedModel: child.requestedModel,
    requestedAgent: str(args.agent_type),
    requestedTier: null,
    agentModel: child.agentModel,
    agentModelFrom: child.agentModelFrom,
    subagentType: str(args.agent_type),
    capability: child.unknown ? NO_REWRITE : COPILOT_CAPABILITY,
    toolInput: args,
    cwd: p.cwd ?? null,
    escalationFrom: extractEscalation(str(args.prompt)),
    at,
  };
}
