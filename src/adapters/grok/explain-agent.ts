/**
 * `tiergate explain --harness grok --agent <type>`: the model chain of one spawn_subagent of that `subagent_type`, as
 * the dispatch hook in that project resolves it (catalog.ts): the call's model (`--child`), the role's, the per-type
 * pin, the agent file's, else the parent's.
 *
 *   explore → [subagents.models] explore = grok-4.5 (~/.grok/config.toml) → … → allowed (within-ceiling)
 */
import type { Decision } from '../../contracts/decision.js';
import type { PriceLookup } from '../../contracts/prices.js';
import { outcomeText, pricedAgainstParent } from '../../routing-engine/explain-text.js';
import type { AgentExplained, AgentExplainInput } from '../harness-module.js';
import { agentFileModel, knownModels, readGrokConfig, resolveGrokChild } from './catalog.js';
import { DISPATCH_TOOL } from './dispatch-payload.js';
import { observeSpawn } from './observe.js';

export async function explainGrokAgent(input: AgentExplainInput): Promise<AgentExplained> {
  const config = readGrokConfig(input.env);
  const child = resolveGrokChild({
    callModel: input.callModel,
    type: input.name,
    config,
    agentFile: (t) => agentFileModel(input.env, input.projectDir, t),
  });
  const toolInput = { subagent_type: input.name, ...(input.callModel ? { model: input.callModel } : {}) };
  const observation = observeSpawn(
    { hookEventName: 'pre_tool_use', sessionId: '', toolName: DISPATCH_TOOL, toolInput, cwd: input.projectDir },
    { model: input.parentModel, source: 'cli' },
    child,
    knownModels(config),
    input.at,
  );
  const chain = (decision: Decision, prices: PriceLookup): string => {
    const parts = [input.name];
    const model = child.requestedModel ?? child.agentModel;
    if (child.requestedModel) parts.push(`model: ${child.requestedModel} (the call)`);
    else if (child.agentModel) parts.push(`model: ${child.agentModel} (${child.agentModelFrom})`);
    else parts.push(`no model set: inherits ${input.parentModel}`);
    if (model) parts.push(...pricedAgainstParent(model, 'grok', input.parentModel, decision, prices));
    parts.push(outcomeText(decision));
    return parts.join(' → ');
  };
  return {
    observation: { ...observation, sessionId: null },
    chain,
    details: { child, catalog: knownModels(config), config: config.file },
  };
}
