/**
 * Codex PreToolUse payload -> DispatchObservation. Pure: the caller passes the clock and the policy switch.
 */
import type { Tier } from '../../contracts/harness.js';
import type { Policy } from '../../contracts/config.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import { capabilityFor } from '../capabilities.js';
import { extractEscalation } from '../../observer/outcome.js';
import { SPAWN_TOOL_NAME, type PreToolUsePayload } from './payloads.js';
import { checkShape } from '../../contracts/shape.js';
import { SHAPES } from '../../contracts/shapes.js';

export function isSpawnTool(toolName: string): boolean {
  return toolName === SPAWN_TOOL_NAME;
}

const TIER_WORDS: readonly string[] = ['cheap', 'standard', 'premium', 'parent'];

/**
 * `tier:cheap` (or a bare tier word), in any letter case, in `model` names a tier rather than a model. Compared as
 * lower-case text, not with an `i` pattern: V8 builds case tables on a process's first one (~0.1 ms of every hook).
 */
function tierOf(model: string | null): Tier | null {
  if (!model) return null;
  const name = model.trim().toLowerCase();
  const word = name.startsWith('tier:') ? name.slice('tier:'.length) : name;
  // The words are exactly TierSchema's options.
  return TIER_WORDS.includes(word) ? (word as Tier) : null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** Rewriting needs `allow` on Codex, so it follows policy.codexRewrite (capabilityFor; docs/codex.md). */
export type ObserveOptions = { policy: Policy; at: number };

/** Returns null when the payload is not a spawn dispatch (the caller answers nothing). Throws on a malformed one. */
export function observeDispatch(raw: unknown, opts: ObserveOptions): DispatchObservation | null {
  // PreToolUsePayloadSchema, checked without zod on the dispatch path (contracts/shape.ts).
  const p = checkShape<PreToolUsePayload>(SHAPES.codexPreToolUse, raw);
  if (!isSpawnTool(p.tool_name)) return null;
  const requested = str(p.tool_input.model);
  const tier = tierOf(requested);
  const parentModel = str(p.model);
  return {
    kind: 'dispatch',
    harness: 'codex',
    sessionId: p.session_id,
    callId: p.tool_use_id ?? null,
    parentModel,
    parentModelSource: parentModel ? 'payload' : null,
    requestedModel: tier ? null : requested,
    requestedAgent: null,
    requestedTier: tier,
    agentModel: null,
    subagentType: str(p.tool_input.agent_type),
    capability: capabilityFor('codex', opts.policy),
    toolInput: p.tool_input,
    cwd: p.cwd ?? null,
    escalationFrom: extractEscalation(typeof p.tool_input.message === 'string' ? p.tool_input.message : null),
    at: opts.at,
  };
}
