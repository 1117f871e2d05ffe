/**
 * `tiergate explain --harness copilot --agent <name>`: the model chain for one `task` dispatch of a Copilot CLI agent,
 * as the dispatch hook resolves it (agents.ts: the call's model, the custom agent's `model:`, else the parent's), and
 * the observation the engine decides on. Explain reads no session file, so whether the session runs BYOK is not known:
 * a model list (a built-in's, or a custom agent's) is then unknown, as it is for a dispatch whose usage line was not
 * read.
 *
 *   pricey → model: claude-opus-4.8 (from ~/.copilot/agents/pricey.agent.md) → claude-opus-4-8 → over the gpt-5.4 parent → corrected to gpt-5.4
 */
import { outcomeText, pricedAgainstParent } from '../../routing-engine/explain-text.js';
import type { Decision } from '../../contracts/decision.js';
import type { PriceLookup } from '../../contracts/prices.js';
import type { AgentExplained, AgentExplainInput } from '../harness-module.js';
import { nodeAgentFs } from '../../agent-files/fs-node.js';
import { lookupCopilotAgent, resolveCopilotChild, type CopilotAgentLookup, type CopilotChild } from './agents.js';
import { copilotHome } from './events.js';
import { observeTask } from './observe.js';

function source(child: CopilotChild, found: CopilotAgentLookup | null): string {
  if (child.unknown) return `unknown (${child.unknown})`;
  if (child.requestedModel) return `model: ${child.requestedModel} (from the call, which outranks the agent's file)`;
  if (child.agentModel) return `model: ${child.agentModel} (from ${child.agentModelFrom})`;
  if (found?.kind === 'built-in') return "a built-in agent: the parent's model";
  return `no model${found?.kind === 'found' ? ` (${found.path})` : ''}: the parent's model`;
}

export async function explainCopilotAgent(input: AgentExplainInput): Promise<AgentExplained> {
  const home = copilotHome(input.env);
  let found: CopilotAgentLookup | null = null;
  const child = await resolveCopilotChild({
    agentType: input.name,
    callModel: input.callModel,
    byok: null,
    lookup: async (name) =>
      (found = await lookupCopilotAgent(nodeAgentFs, name, {
        copilotHome: home,
        projectDir: input.projectDir,
        home: input.env.HOME || null,
      })),
  });
  const toolArgs = { agent_type: input.name, ...(input.callModel ? { model: input.callModel } : {}) };
  const observation = {
    ...observeTask(
      { sessionId: '', toolName: 'task', toolArgs, cwd: input.projectDir },
      { parentModel: input.parentModel, callId: null, byok: null, parentMultiplier: null, source: null },
      child,
      input.at,
    ),
    sessionId: null,
    parentModelSource: 'cli',
  };
  const chain = (decision: Decision, prices: PriceLookup): string => {
    const parent = input.parentModel;
    const model = child.requestedModel ?? child.agentModel;
    const parts = [input.name, source(child, found)];
    if (model) {
      parts.push(...pricedAgainstParent(model, 'copilot', parent, decision, prices));
    } else if (!child.unknown) parts.push(`inherits ${parent}`);
    parts.push(outcomeText(decision));
    return parts.join(' → ');
  };
  return { observation, chain, details: { definition: found, child } };
}
