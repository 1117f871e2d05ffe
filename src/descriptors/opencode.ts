/** OpenCode, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import { defineHarness } from './define.js';

export const opencodeHarness = defineHarness({
  name: 'OpenCode',
  // OpenCode 1.18.33: in-place mutation of output.args.subagent_type is honoured; the task tool has no model arg.
  rewrite: { field: 'subagent_type', kind: 'agent' },
  // Routes by agent: empty until configured (tiergate install writes tier agents).
  defaultTiers: {},
  childEndEvent: 'tool.execute.after[task]',
  childStop: "the child's next model request or tool call (plugin, in process)",
  // An in-process plugin (dist/opencode.js): no command hook.
  dispatchEvents: [],
});
