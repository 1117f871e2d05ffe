/** OpenCode, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import type { HarnessDescriptor } from '../contracts/harness.js';

export const opencodeDescriptor: HarnessDescriptor = {
  id: 'opencode',
  name: 'OpenCode',
  documentationOnly: false,
  // OpenCode 1.18.33: in-place mutation of output.args.subagent_type is honoured; the task tool has no model arg.
  capability: () => ({
    canRewrite: true,
    rewriteField: 'subagent_type',
    rewriteKind: 'agent',
    legalValues: null,
    canDeny: true,
  }),
  // Routes by agent: empty until configured (tiergate install writes tier agents).
  defaultTiers: {},
  reportsUsage: true,
  childEndEvent: 'tool.execute.after[task]',
  // An in-process plugin (dist/opencode.js): no command hook.
  dispatchEvents: [],
};
