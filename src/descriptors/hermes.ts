/** Hermes Agent (NousResearch `hermes-agent`), as the dispatch path and the policy know it (contracts/harness.ts). */
import { defineHarness } from './define.js';

export const hermesHarness = defineHarness({
  name: 'Hermes Agent',
  // Hermes 0.19.0's delegate_task has no model argument (the child runs on config.yaml delegation.model, else the
  // parent's). The plugin corrects by rewriting `model` on the child session's API requests (llm_request middleware,
  // seen honoured), which only works when the child's endpoint is the parent's; otherwise the dispatch hook turns
  // canRewrite off and a `{"action":"block"}` reaches the model as the tool result (seen).
  rewrite: { field: 'model', kind: 'model' },
  // Hermes serves any provider's ids: the user's own delegation tiers decide (tiergate config), none by default.
  defaultTiers: {},
  // The Python plugin ($HERMES_HOME/plugins/tiergate) starts `node dist/hook.cjs hermes pre_tool_call` per delegation.
  dispatchEvents: ['pre_tool_call'],
});
