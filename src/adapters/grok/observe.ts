/** Grok Build PreToolUse[spawn_subagent] -> DispatchObservation. Pure: the caller read the session and config files. */
import type { DispatchObservation } from '../../contracts/observation.js';
import { extractEscalation } from '../../observer/outcome.js';
import type { GrokChild } from './catalog.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import type { DispatchPayload } from './dispatch-payload.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export type ParentRead = { model: string | null; source: string | null };

export function observeSpawn(
  p: DispatchPayload,
  parent: ParentRead,
  child: GrokChild,
  /** The ids Grok's catalog knows (catalog.ts knownModels): a correction may name only these, or the parent's. */
  known: readonly string[],
  at: number,
): DispatchObservation {
  const input = p.toolInput;
  const type = str(input.subagent_type);
  const legal = [...new Set([...known, ...(parent.model ? [parent.model] : [])])];
  return {
    kind: 'dispatch',
    harness: 'grok',
    sessionId: p.sessionId,
    callId: p.toolUseId ?? null,
    parentModel: parent.model,
    parentModelSource: parent.model ? parent.source : null,
    requestedModel: child.requestedModel,
    requestedAgent: type,
    requestedTier: null,
    agentModel: child.agentModel,
    agentModelFrom: child.agentModelFrom,
    subagentType: type,
    capability: { ...DESCRIPTORS.grok.capability({}), legalValues: legal },
    toolInput: input,
    cwd: p.cwd ?? null,
    escalationFrom: extractEscalation(str(input.prompt)),
    at,
  };
}
