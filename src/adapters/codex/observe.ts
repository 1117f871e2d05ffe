/**
 * Codex PreToolUse payload -> DispatchObservation. Pure: the caller passes the clock and the policy switch.
 */
import type { Tier } from '../../contracts/harness.js';
import { TIERS } from '../../contracts/harness-ids.js';
import type { Policy } from '../../contracts/config.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import { capabilityFor } from '../capabilities.js';
import { extractEscalation } from '../../observer/outcome.js';
import { readPreToolUse, SPAWN_TOOL_NAME } from './dispatch-payload.js';
import type { Env } from '../../io/paths.js';
import { resolveCodexRole, type CodexRole } from './roles.js';

export function isSpawnTool(toolName: string): boolean {
  return toolName === SPAWN_TOOL_NAME;
}

/**
 * `tier:cheap` (or a bare tier word), in any letter case, in `model` names a tier rather than a model. Compared as
 * lower-case text, not with an `i` pattern: V8 builds case tables on a process's first one (~0.1 ms of every hook).
 */
function tierOf(model: string | null): Tier | null {
  if (!model) return null;
  const name = model.trim().toLowerCase();
  const word = name.startsWith('tier:') ? name.slice('tier:'.length) : name;
  return (TIERS as readonly string[]).includes(word) ? (word as Tier) : null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * Rewriting needs `allow` on Codex, so it follows policy.codexRewrite (capabilityFor; docs/codex.md). `env` lets a
 * spawn that names `agent_type` resolve that role's model (roles.ts); `roles` replaces the resolver (tests).
 */
export type ObserveOptions = {
  policy: Policy;
  at: number;
  env?: Env;
  roles?: (name: string, cwd: string | null) => CodexRole | null;
};

/** Returns null when the payload is not a spawn dispatch (the caller answers nothing). Throws on a malformed one. */
export function observeDispatch(raw: unknown, opts: ObserveOptions): DispatchObservation | null {
  const p = readPreToolUse(raw);
  if (!isSpawnTool(p.tool_name)) return null;
  const requested = str(p.tool_input.model);
  const parentModel = str(p.model);
  const agentType = str(p.tool_input.agent_type);
  const resolve =
    opts.roles ?? (opts.env ? (name: string, cwd: string | null) => resolveCodexRole(opts.env!, cwd, name) : null);
  const role = agentType && resolve ? resolve(agentType, p.cwd ?? null) : null;
  // A role that pins a model beats the spawn's `model` and any rewrite of it (0.169.0, seen): the child runs on the
  // role's model, and the only way to another model is another role. So tiergate decides on the role's model and, over
  // the ceiling, denies naming a role rather than rewriting a `model` Codex would ignore. `default` (a built-in, no
  // model: the parent's) is the retry it names. Switching the role for the user is not done: a role can also narrow
  // the sandbox or the instructions, and a correction must not widen what a child may do.
  const pinned = role?.model ? role : null;
  const tier = pinned ? null : tierOf(requested);
  return {
    kind: 'dispatch',
    harness: 'codex',
    sessionId: p.session_id,
    callId: p.tool_use_id ?? null,
    parentModel,
    parentModelSource: parentModel ? 'payload' : null,
    requestedModel: pinned || tier ? null : requested,
    requestedAgent: agentType,
    requestedTier: tier,
    agentModel: pinned ? pinned.model : null,
    agentModelFrom: pinned ? pinned.from : null,
    subagentType: agentType,
    capability: pinned
      ? { canRewrite: false, rewriteField: 'agent_type', rewriteKind: 'agent', legalValues: null, canDeny: true }
      : capabilityFor('codex', opts.policy),
    ...(pinned && parentModel
      ? { candidates: [{ value: 'default', model: parentModel, tier: 'parent' as const }] }
      : {}),
    toolInput: p.tool_input,
    cwd: p.cwd ?? null,
    escalationFrom: extractEscalation(typeof p.tool_input.message === 'string' ? p.tool_input.message : null),
    at: opts.at,
  };
}
