/** Hermes pre_tool_call[delegate_task] -> DispatchObservation. Pure: the plugin read the config and tracked the parent. */
import type { DispatchObservation } from '../../contracts/observation.js';
import { extractEscalation } from '../../observer/outcome.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import type { HermesDispatchPayload } from './dispatch-payload.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export function observeDelegation(p: HermesDispatchPayload, at: number): DispatchObservation {
  const parent = str(p.parent_model);
  const pinned = str(p.delegation_model);
  const cap = DESCRIPTORS.hermes.capability({});
  return {
    kind: 'dispatch',
    harness: 'hermes',
    sessionId: p.session_id,
    callId: str(p.tool_call_id),
    parentModel: parent,
    parentModelSource: parent ? 'hermes session (on_session_start/post_api_request)' : null,
    requestedModel: null,
    requestedAgent: null,
    requestedTier: null,
    agentModel: pinned,
    agentModelFrom: pinned ? 'config.yaml delegation.model' : null,
    subagentType: null,
    // The rewrite changes only the model name on the child's requests, never its endpoint: a child sent to another
    // endpoint (delegation.base_url / delegation.provider) cannot be corrected, only denied with a retry message.
    capability: str(p.delegation_endpoint) ? { ...cap, canRewrite: false, rewriteField: null } : cap,
    toolInput: p.args,
    cwd: str(p.cwd),
    escalationFrom: extractEscalation(str(p.args.goal)),
    at,
  };
}
