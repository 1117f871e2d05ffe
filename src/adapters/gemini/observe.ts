/**
 * Gemini CLI BeforeTool[invoke_agent] -> DispatchObservation. Pure: the caller reads the parent's chat file and the
 * agent definitions (dispatch-command.ts) and passes the clock.
 *
 * The child's model is its agent's (agents.ts): the definition's `model:` as Gemini sends it (models.ts), the parent's
 * for `inherit`; invoke_agent takes no model argument (an extra `model` is ignored: seen), so nothing in the call
 * itself names one. A correction switches `agent_name` to one of tiergate's tier agents Gemini has loaded
 * (`tiergate-<tier>`, from the extension `tiergate install gemini` installs): those are the only legal values.
 */
import type { Candidate, DispatchObservation } from '../../contracts/observation.js';
import type { Tier } from '../../contracts/harness.js';
import { extractEscalation } from '../../observer/outcome.js';
import { tierAgentName } from '../tier-agents.js';
import type { AgentTable, GeminiAgent } from './agents.js';
import { dispatchCallId, type ParentTurn } from './chat-file.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { INHERIT, wireModel } from './models.js';
import { DISPATCH_TOOL, type DispatchPayload } from './dispatch-payload.js';

const TIERS: readonly Tier[] = ['parent', 'premium', 'standard', 'cheap'];

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * The model a definition runs its child on, as sent, and where that was set. An inheriting agent is priced as the
 * parent (null when the parent's model is unknown, so the engine allows and records it rather than guess).
 */
export function agentModelOf(
  agent: GeminiAgent | null,
  parentModel: string | null,
): { model: string | null; from: string | null } {
  if (!agent || agent.model === null) return { model: null, from: null };
  if (agent.model === INHERIT)
    return { model: parentModel, from: parentModel ? `inherits the parent (${agent.from} names no model)` : null };
  const wire = wireModel(agent.model);
  return {
    model: wire.model,
    from: wire.resolved ? `${agent.from}: ${agent.model}, sent as ${wire.model}` : agent.from,
  };
}

/** tiergate's tier agents Gemini has loaded, each with the model it runs on (a correction's only targets). */
export function tierCandidates(agents: AgentTable, parentModel: string | null): Candidate[] {
  return TIERS.flatMap((tier) => {
    const name = tierAgentName(tier);
    const model = agentModelOf(agents.get(name), parentModel).model;
    return model ? [{ value: name, model, tier }] : [];
  });
}

export type ParentRead = ParentTurn & { source: string | null };

/** Null for any tool but invoke_agent (the caller answers nothing). */
export function observeDispatch(
  p: DispatchPayload,
  parent: ParentRead,
  agents: AgentTable,
  at: number,
): DispatchObservation | null {
  if (p.tool_name !== DISPATCH_TOOL) return null;
  const name = str(p.tool_input.agent_name);
  const agent = name ? agents.get(name) : null;
  const child = agentModelOf(agent, parent.model);
  const candidates = tierCandidates(agents, parent.model);
  // An agent limited to some tools is never switched for the user: the tier agents may use every tool, and a
  // correction must not widen what a child may do. Over the ceiling it is denied, the retry naming the tier agent.
  const canRewrite = !agent?.restrictsTools;
  return {
    kind: 'dispatch',
    harness: 'gemini',
    sessionId: p.session_id,
    callId: parent.messageId ? dispatchCallId(parent.messageId, p.tool_input.prompt) : null,
    parentModel: parent.model,
    parentModelSource: parent.model ? parent.source : null,
    requestedModel: null,
    requestedAgent: name,
    // A tier agent's live definition is the truth (the user may have edited its model), so it is read as any agent.
    requestedTier: null,
    agentModel: child.model,
    agentModelFrom: child.from,
    subagentType: name,
    capability: {
      ...DESCRIPTORS.gemini.capability({}),
      canRewrite,
      legalValues: candidates.map((c) => c.value),
    },
    candidates,
    toolInput: p.tool_input,
    cwd: p.cwd ?? null,
    escalationFrom: extractEscalation(str(p.tool_input.prompt)),
    at,
  };
}
