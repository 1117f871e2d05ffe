/** pi, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import { defineHarness } from './define.js';

export const piHarness = defineHarness({
  name: 'pi',
  // pi 0.73.1: in-place mutation of event.input.agent is honoured. An in-process extension (dist/pi.js): no command
  // hook. Routes by agent: no tiers until configured (tiergate install writes tier agents).
  rewrite: { field: 'agent', kind: 'agent' },
  defaultTiers: {},
  childEndEvent: 'tool_result[subagent]',
  childStop: "the child's next tool call (extension in the child pi process, installed globally)",
  dispatchEvents: [],
});
