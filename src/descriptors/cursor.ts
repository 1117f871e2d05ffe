/** Cursor, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). Documentation only. */
import { defineHarness } from './define.js';

export const cursorHarness = defineHarness({
  name: 'Cursor',
  documentationOnly: true,
  // Documentation only: subagentStart can allow or deny, never rewrite.
  rewrite: null,
  // Routes by the user's own model names: empty until configured.
  defaultTiers: {},
  // Its hooks carry no token usage (cursor.md): its runs are counted, never priced.
  reportsUsage: false,
  // Its stop hook reaches only the spool (drained later), not the spend summary: no child end while the parent runs.
  dispatchEvents: ['preToolUse', 'subagentStart'],
});
