/**
 * OpenCode 1.18.33 payloads -> tiergate observations. Pure functions over the callback arguments and the plugin state.
 * Payload shapes: reference/opencode.md §4, fixtures/opencode/*.
 */
import type { Capability } from '../../contracts/harness.js';
import { DEFAULT_POLICY } from '../../config/defaults.js';
import { capabilityFor } from '../capabilities.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import type { OpencodeState } from './state.js';
import { extractEscalation as escalationFrom } from '../../observer/outcome.js';
import { tierOfAgent } from '../tier-agents.js';
import { isRecord } from '../../contracts/record.js';

/** OpenCode's hidden agents: their chat.params carry the parent's sessionID with another model (title: seen). */
const HIDDEN_AGENTS = new Set(['title', 'summary', 'compaction']);
/** Built-in subagents that run on the parent's model unless configured (general: seen; explore: source). */
const BUILTIN_SUBAGENTS = new Set(['general', 'explore']);

export const TASK_TOOL = 'task';

type Rec = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** `provider/model` from any of OpenCode's model shapes ({id, providerID} or {modelID, providerID}). */
export function modelName(m: unknown): string | null {
  if (!isRecord(m)) return str(m);
  const id = str(m.id) ?? str(m.modelID);
  const provider = str(m.providerID);
  if (!id) return null;
  return provider ? `${provider}/${id}` : id;
}

/** `provider.<p>.models.<id>.cost` of the live config, as `p/id` names (prices/declared.ts reads the cost object). */
export function configuredCosts(cfg: unknown): { model: string; cost: unknown }[] {
  const out: { model: string; cost: unknown }[] = [];
  const providers = isRecord(cfg) && isRecord(cfg.provider) ? cfg.provider : {};
  for (const [p, prov] of Object.entries(providers)) {
    const models = isRecord(prov) && isRecord(prov.models) ? prov.models : {};
    for (const [id, m] of Object.entries(models))
      if (isRecord(m) && m.cost !== undefined) out.push({ model: `${p}/${id}`, cost: m.cost });
    if (out.length >= 500) break;
  }
  return out;
}

/**
 * `config` callback: remember every configured agent and its model, and the default model. `sources` (agent-files.ts)
 * says where each agent was configured; read by the caller, so this stays pure.
 */
export function readConfig(cfg: unknown, state: OpencodeState, sources?: ReadonlyMap<string, string>): void {
  if (!isRecord(cfg)) return;
  state.defaultModel = str(cfg.model) ?? state.defaultModel;
  const agents = isRecord(cfg.agent) ? cfg.agent : {};
  state.agents.clear();
  for (const [name, a] of Object.entries(agents)) {
    if (!isRecord(a)) continue;
    state.agents.set(name, { name, model: str(a.model), mode: str(a.mode), from: sources?.get(name) ?? null });
  }
}

/** `chat.params`: the session's model at the moment it calls the API. Hidden agents are skipped (title trap). */
export function readChatParams(input: unknown, state: OpencodeState, now: number): void {
  if (!isRecord(input)) return;
  const sessionId = str(input.sessionID);
  const agent = str(input.agent) ?? '';
  const model = modelName(input.model);
  if (!sessionId || !model || HIDDEN_AGENTS.has(agent)) return;
  state.setSessionModel(sessionId, { model, agent, at: now });
}

/** The shared OpenCode capability, narrowed to the tier agents the live config has. */
export const OPENCODE_CAPABILITY = (legal: string[]): Capability => ({
  ...capabilityFor('opencode', DEFAULT_POLICY),
  legalValues: legal,
});

/**
 * The model an agent runs on and where that was set: its configured model, else the parent's (OpenCode 1.18.33:
 * `agent.model ?? parent`, source; built-in `general` seen on the parent). An inheriting agent keeps the parent's model
 * here rather than null: for an agent-kind harness the engine reads a null agentModel as "cannot tell" (allowed and
 * logged as unknown), while an agent known to inherit is simply priced as the parent. Null for an agent the config does
 * not have (OpenCode refuses it: "Unknown agent type").
 */
export function agentModelOf(
  name: string,
  state: OpencodeState,
  parentModel: string | null,
): { model: string | null; from: string | null } {
  const a = state.agents.get(name);
  if (a?.model) return { model: a.model, from: a.from ?? null };
  const inherits = a
    ? `inherits the parent (${a.from ?? `agent ${name}`} names no model)`
    : `inherits the parent (built-in agent ${name})`;
  if (a || BUILTIN_SUBAGENTS.has(name)) return { model: parentModel, from: parentModel ? inherits : null };
  return { model: null, from: null };
}

/** `tool.execute.before` for `task` -> a dispatch observation; null for any other tool or a malformed payload. */
export function observeDispatch(
  input: unknown,
  output: unknown,
  state: OpencodeState,
  now: number,
  cwd: string | null,
): DispatchObservation | null {
  if (!isRecord(input) || input.tool !== TASK_TOOL || !isRecord(output) || !isRecord(output.args)) return null;
  const args = output.args;
  const sessionId = str(input.sessionID);
  const fromParams = sessionId ? state.sessionModel(sessionId) : undefined;
  const parentModel = fromParams?.model ?? state.defaultModel;
  const requestedAgent = str(args.subagent_type);
  const agent = requestedAgent ? agentModelOf(requestedAgent, state, parentModel) : { model: parentModel, from: null };
  const candidates: NonNullable<DispatchObservation['candidates']> = [];
  for (const a of state.agents.values()) {
    const tier = tierOfAgent(a.name);
    const model = a.model ?? parentModel;
    if (tier && model) candidates.push({ value: a.name, model, tier });
  }
  return {
    kind: 'dispatch',
    harness: 'opencode',
    sessionId,
    callId: str(input.callID),
    parentModel,
    parentModelSource: fromParams ? 'chat.params' : parentModel ? 'config' : null,
    // A `model` argument is ignored by 1.18.33's task tool (seen): only the agent decides the model.
    requestedModel: null,
    requestedAgent,
    // The live agent's model is the truth (a user may define tiergate-cheap.md with another model than the policy).
    requestedTier: null,
    agentModel: agent.model,
    agentModelFrom: agent.from,
    subagentType: requestedAgent,
    capability: OPENCODE_CAPABILITY(candidates.map((c) => c.value)),
    candidates,
    toolInput: { ...args },
    cwd,
    escalationFrom: escalationFrom(str(args.prompt)),
    at: now,
  };
}
