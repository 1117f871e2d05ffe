/**
 * `tiergate explain --agent <name>` for Claude Code: the model chain for one agent, as the dispatch hook resolves it
 * (agent-definitions.ts, through Node's fs), and the observation the engine decides on. One line says it all:
 *
 *   deep-review → model: opus (from .claude/agents/deep-review.md) → claude-opus-5-5 → over the sonnet parent → corrected to sonnet
 */
import { withoutTrailingSlashes } from '../../io/text.js';
import { outcomeText, pricedAgainstParent } from '../../routing-engine/explain-text.js';
import type { Decision } from '../../contracts/decision.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import type { PriceLookup } from '../../contracts/prices.js';
import type { Env } from '../../io/paths.js';
import {
  agentLookup,
  resolveChildModel,
  type AgentLookup,
  type AgentPlaces,
  type ChildModel,
} from './agent-definitions.js';
import { nodeAgentFs } from '../../agent-files/fs-node.js';
import { claudeDispatch, FORK } from './observe.js';

export type AgentExplanation = { observation: DispatchObservation; child: ChildModel; definition: AgentLookup | null };

/** The session's places as a command hook in `projectDir` would see them. */
export function placesFor(env: Env, projectDir: string): AgentPlaces {
  const home = env.HOME || null;
  return {
    projectDir,
    configDir: env.CLAUDE_CONFIG_DIR || (home ? `${withoutTrailingSlashes(home)}/.claude` : null),
    home,
  };
}

/** Resolves `name` (and the call's model, when given) under `parentModel` into the observation the hook would build. */
export async function explainAgent(input: {
  name: string;
  callModel: string | null;
  parentModel: string;
  projectDir: string;
  env: Env;
  at: number;
}): Promise<AgentExplanation> {
  const lookup = agentLookup(nodeAgentFs, placesFor(input.env, input.projectDir));
  let definition: AgentLookup | null = null;
  const fork = input.name === FORK;
  const child = await resolveChildModel({
    subagentType: input.name,
    callModel: input.callModel,
    fork,
    parentModel: input.parentModel,
    env: input.env,
    lookup: async (n) => (definition = await lookup(n)),
  });
  const toolInput = { subagent_type: input.name, ...(input.callModel ? { model: input.callModel } : {}) };
  const observation = claudeDispatch({
    sessionId: null,
    callId: null,
    parent: { model: input.parentModel, source: 'cli' },
    subagentType: input.name,
    prompt: null,
    toolInput,
    cwd: input.projectDir,
    at: input.at,
    child,
  });
  return { observation, child, definition };
}

/** Where the child's model comes from, in words. */
function source(e: AgentExplanation): string {
  const { child, definition } = e;
  if (e.observation.subagentType === FORK) return "a fork: runs on the parent's model, whatever the call says";
  if (child.unknown) return `unknown (${child.unknown})`;
  if (child.requestedModel) return `model: ${child.requestedModel} (from the call, which outranks the agent's file)`;
  if (child.agentModel) return `model: ${child.agentModel} (from ${child.agentModelFrom})`;
  const def = definition?.kind === 'found' ? definition.def : null;
  if (def?.model === 'inherit') return `model: inherit (from ${def.display}): the parent's model`;
  return `no model (${def ? def.display : 'no definition'}): the parent's model`;
}

/** The one-line chain: name → source → priced id → against the parent → outcome. */
export function chainLine(e: AgentExplanation, decision: Decision, prices: PriceLookup): string {
  const parent = e.observation.parentModel ?? '(unknown)';
  const model = e.child.requestedModel ?? e.child.agentModel;
  const parts = [e.observation.subagentType ?? '(none)', source(e)];
  if (model) {
    parts.push(...pricedAgainstParent(model, 'claude', parent, decision, prices));
  } else if (!e.child.unknown) {
    parts.push(`inherits ${parent}`);
  }
  parts.push(outcomeText(decision));
  return parts.join(' → ');
}
