/**
 * Claude Code PreToolUse[Agent|Task] and agent.spawn -> DispatchObservation. Thin: no decision here.
 */
import type { Capability } from '../../contracts/harness.js';
import { capabilityFor } from '../capabilities.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import { extractEscalation } from '../../observer/outcome.js';
import type { DispatchPayload } from './dispatch-payload.js';
import type { ChildModel } from './agent-definitions.js';

/**
 * Claude's capability does not depend on the policy (aliases only, rewrite honoured on both paths; see capabilities.ts):
 * asked with no policy keys, so the dispatch bundle does not build the default policy (every harness's tiers) for it.
 */
export const CLAUDE_CAPABILITY: Capability = capabilityFor('claude', {});

/** Forks always inherit the parent's model; the tool ignores `model` for them (Agent tool description; seen, 2.1.328). */
export const FORK = 'fork';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export type ParentModel = { model: string | null; source: string | null };

/** The capability for one dispatch: no rewrite where Claude Code would ignore it, or where its own choice is unknown. */
const NO_REWRITE: Capability = { ...CLAUDE_CAPABILITY, canRewrite: false, rewriteField: null };

/**
 * The fields both paths share, from the tool input (command hook) or the agent.spawn event (module). `child` is what
 * Claude Code would run the child on (agent-definitions.ts resolveChildModel); a child whose model tiergate could not
 * tell gets no rewrite at all, since a default tier written over an agent's unknown model could raise its cost.
 */
export function claudeDispatch(input: {
  sessionId: string | null;
  callId: string | null;
  parent: ParentModel;
  subagentType: string | null;
  prompt: string | null;
  toolInput: Record<string, unknown>;
  cwd: string | null;
  at: number;
  child: ChildModel;
}): DispatchObservation {
  const { child } = input;
  return {
    kind: 'dispatch',
    harness: 'claude',
    sessionId: input.sessionId,
    callId: input.callId,
    parentModel: input.parent.model,
    parentModelSource: input.parent.source,
    requestedModel: child.requestedModel,
    requestedAgent: null,
    requestedTier: null,
    agentModel: child.agentModel,
    agentModelFrom: child.agentModelFrom,
    subagentType: input.subagentType,
    capability: child.rewriteHonoured && !child.unknown ? CLAUDE_CAPABILITY : NO_REWRITE,
    toolInput: input.toolInput,
    cwd: input.cwd,
    escalationFrom: extractEscalation(input.prompt),
    at: input.at,
  };
}

/** The PreToolUse call's own fields: subagent type and model as the call names them. */
export function preToolUseCall(p: DispatchPayload): {
  subagentType: string | null;
  callModel: string | null;
  fork: boolean;
} {
  const subagentType = str(p.tool_input.subagent_type);
  return { subagentType, callModel: str(p.tool_input.model), fork: subagentType === FORK };
}

export function observePreToolUse(
  p: DispatchPayload,
  parent: ParentModel,
  child: ChildModel,
  at: number,
): DispatchObservation {
  const ti = p.tool_input;
  return claudeDispatch({
    sessionId: str(p.session_id),
    callId: str(p.tool_use_id),
    parent,
    subagentType: str(ti.subagent_type),
    prompt: str(ti.prompt),
    toolInput: ti,
    cwd: str(p.cwd),
    at,
    child,
  });
}
