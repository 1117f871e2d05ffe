/**
 * Claude Code PreToolUse[Agent|Task] and agent.spawn -> DispatchObservation. Thin: no decision here.
 */
import type { Capability } from '../../contracts/harness.js';
import { capabilityFor } from '../capabilities.js';
import { DEFAULT_POLICY } from '../../config/defaults.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import { extractEscalation } from '../../observer/outcome.js';
import type { PreToolUsePayload } from './payloads.js';

/** Claude's capability does not depend on the policy (aliases only, rewrite honoured on both paths; see capabilities.ts). */
export const CLAUDE_CAPABILITY: Capability = capabilityFor('claude', DEFAULT_POLICY);

/** Forks always inherit the parent's model; the tool ignores `model` for them (Agent tool description, 2.1.328). */
const FORK = 'fork';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export type ParentModel = { model: string | null; source: string | null };

/** The fields both paths share, from the tool input (command hook) or the agent.spawn event (module). */
export function claudeDispatch(input: {
  sessionId: string | null; callId: string | null; parent: ParentModel; model: string | null; subagentType: string | null;
  prompt: string | null; toolInput: Record<string, unknown>; cwd: string | null; at: number;
}): DispatchObservation {
  const fork = input.subagentType === FORK;
  return {
    kind: 'dispatch',
    harness: 'claude',
    sessionId: input.sessionId,
    callId: input.callId,
    parentModel: input.parent.model,
    parentModelSource: input.parent.source,
    requestedModel: fork ? null : input.model,
    requestedAgent: null,
    requestedTier: null,
    agentModel: null,
    subagentType: input.subagentType,
    capability: fork ? { ...CLAUDE_CAPABILITY, canRewrite: false, rewriteField: null } : CLAUDE_CAPABILITY,
    toolInput: input.toolInput,
    cwd: input.cwd,
    escalationFrom: extractEscalation(input.prompt),
    at: input.at,
  };
}

export function observePreToolUse(p: PreToolUsePayload, parent: ParentModel, at: number): DispatchObservation {
  const ti = p.tool_input;
  return claudeDispatch({
    sessionId: str(p.session_id), callId: str(p.tool_use_id), parent, model: str(ti.model), subagentType: str(ti.subagent_type),
    prompt: str(ti.prompt), toolInput: ti, cwd: str(p.cwd), at,
  });
}
