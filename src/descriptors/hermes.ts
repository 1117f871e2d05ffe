/** Hermes Agent (NousResearch `hermes-agent`), as the dispatch path and the policy know it (contracts/harness.ts). */
import type { HarnessDescriptor } from '../contracts/harness.js';

export const hermesDescriptor: HarnessDescriptor = {
  id: 'hermes',
  name: 'Hermes Agent',
  documentationOnly: false,
  // Hermes 0.19.0's delegate_task has no model argument (the child runs on config.yaml delegation.model, else the
  // parent's). The plugin corrects by rewriting `model` on the child session's API requests (llm_request middleware,
  // seen honoured), which only works when the child's endpoint is the parent's; otherwise the dispatch hook turns
  // canRewrite off and a `{"action":"block"}` reaches the model as the tool result (seen).
  capability: () => ({
    canRewrite: true,
    rewriteField: 'model',
    rewriteKind: 'model',
    legalValues: null,
    canDeny: true,
  }),
  // Hermes serves any provider's ids: the user's own delegation tiers decide (tiergate config), none by default.
  defaultTiers: {},
  reportsUsage: true,
  // The Python plugin ($HERMES_HOME/plugins/tiergate) starts `node dist/hook.cjs hermes pre_tool_call` per delegation.
  dispatchEvents: ['pre_tool_call'],
};
