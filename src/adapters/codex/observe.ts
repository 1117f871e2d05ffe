/**
 * Codex PreToolUse payload -> DispatchObservation. Pure: the caller passes the clock and the policy switch.
 */
import type { Capability } from '../../contracts/harness.js';
import { TierSchema, type Tier } from '../../contracts/harness.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import { parseEscalation } from '../../observer/outcome.js';
import { PreToolUsePayloadSchema, SPAWN_TOOL_NAME, type PreToolUsePayload } from './payloads.js';

/**
 * Codex 0.169.0 honours `updatedInput` only together with `permissionDecision: "allow"`, which also answers the
 * permission question for that call; so rewriting is opt-in (policy.codexRewrite) and the default is deny-with-retry.
 * `model` takes any catalog id (the tool description lists gpt-6.1-sol, gpt-6-astra, …), hence legalValues null.
 */
export function codexCapability(codexRewrite: boolean): Capability {
  return { canRewrite: codexRewrite, rewriteField: 'model', rewriteKind: 'model', legalValues: null, canDeny: true };
}

export function isSpawnTool(toolName: string): boolean {
  return toolName === SPAWN_TOOL_NAME;
}

/** `tier:cheap` (or a bare tier word) in `model` names a tier rather than a model. */
function tierOf(model: string | null): Tier | null {
  if (!model) return null;
  const m = /^(?:tier:)?(cheap|standard|premium|parent)$/i.exec(model.trim());
  if (!m) return null;
  const parsed = TierSchema.safeParse(m[1]!.toLowerCase());
  return parsed.success ? parsed.data : null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export type ObserveOptions = { codexRewrite: boolean; at: number };

/** Returns null when the payload is not a spawn dispatch (the caller answers nothing). Throws on a malformed one. */
export function observeDispatch(raw: unknown, opts: ObserveOptions): DispatchObservation | null {
  const p: PreToolUsePayload = PreToolUsePayloadSchema.parse(raw);
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
    capability: codexCapability(opts.codexRewrite),
    toolInput: p.tool_input,
    cwd: p.cwd ?? null,
    escalationFrom: parseEscalation(typeof p.tool_input.message === 'string' ? p.tool_input.message : null),
    at: opts.at,
  };
}
