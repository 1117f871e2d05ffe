/**
 * `tiergate explain --harness gemini --agent <name>`: the model chain for one `invoke_agent` dispatch, as the dispatch
 * hook in that project resolves it (agents.ts: settings overrides, the first definition of the name, an acknowledged
 * project agent, the built-ins; models.ts: the id as sent), with tiergate's tier agents as the correction's targets.
 * `invoke_agent` has no model argument: a `--child` model is not what Gemini would run, and is said so.
 *
 *   pricey → model: gemini-3-pro-preview, sent as gemini-3.1-pro-preview-customtools (~/.gemini/agents/pricey.md) → … → corrected to tiergate-parent
 */
import { outcomeText, pricedAgainstParent } from '../../routing-engine/explain-text.js';
import type { Decision } from '../../contracts/decision.js';
import type { PriceLookup } from '../../contracts/prices.js';
import type { AgentExplained, AgentExplainInput } from '../harness-module.js';
import { loadAgents } from './agents.js';
import { DISPATCH_TOOL } from './dispatch-payload.js';
import { wireModel } from './models.js';
import { observeDispatch } from './observe.js';

export async function explainGeminiAgent(input: AgentExplainInput): Promise<AgentExplained> {
  // The hook reads the parent's model as sent (its chat file); a name typed here is resolved the same way.
  const parent = wireModel(input.parentModel).model;
  const agents = loadAgents(input.env, input.projectDir, parent);
  const agent = agents.get(input.name);
  const observation = observeDispatch(
    {
      session_id: '',
      tool_name: DISPATCH_TOOL,
      tool_input: { agent_name: input.name, prompt: '' },
      cwd: input.projectDir,
    },
    { model: parent, messageId: null, source: 'cli' },
    agents,
    input.at,
  )!;
  const explained = { ...observation, sessionId: null, toolInput: { agent_name: input.name } };
  const chain = (decision: Decision, prices: PriceLookup): string => {
    const parts = [input.name];
    if (input.callModel) parts.push(`(--child ${input.callModel} ignored: invoke_agent takes no model)`);
    if (!agent) parts.push(`not found (Gemini answers "Subagent '${input.name}' not found")`);
    else if (observation.agentModel) {
      parts.push(`model: ${observation.agentModel} (${observation.agentModelFrom ?? agent.from})`);
      parts.push(...pricedAgainstParent(observation.agentModel, 'gemini', parent, decision, prices));
    } else parts.push(`no model (${agent.from}): inherits ${parent}`);
    if (agent?.restrictsTools) parts.push('limited to some tools: never switched');
    parts.push(outcomeText(decision));
    return parts.join(' → ');
  };
  return {
    observation: explained,
    chain,
    details: { agent, tierAgents: observation.candidates ?? [] },
  };
}
