/** pi, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import type { HarnessDescriptor } from '../contracts/harness.js';

export const piDescriptor: HarnessDescriptor = {
  id: 'pi',
  name: 'pi',
  documentationOnly: false,
  // pi 0.73.1: in-place mutation of event.input.agent is honoured.
  capability: () => ({
    canRewrite: true,
    rewriteField: 'agent',
    rewriteKind: 'agent',
    legalValues: null,
    canDeny: true,
  }),
  // Routes by agent: empty until configured (tiergate install writes tier agents).
  defaultTiers: {},
  reportsUsage: true,
  childEndEvent: 'tool_result[subagent]',
  // An in-process extension (dist/pi.js): no command hook.
  dispatchEvents: [],
};
