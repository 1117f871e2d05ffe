/** Codex CLI, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import type { HarnessDescriptor } from '../contracts/harness.js';

export const codexDescriptor: HarnessDescriptor = {
  id: 'codex',
  name: 'Codex',
  documentationOnly: false,
  // Codex 0.169.0 honours updatedInput only with permissionDecision "allow"; off unless the policy opts in.
  capability: (policy) => ({
    canRewrite: policy.codexRewrite,
    rewriteField: policy.codexRewrite ? 'model' : null,
    rewriteKind: 'model',
    legalValues: null,
    canDeny: true,
  }),
  // Codex 0.169.0 lists gpt-6.1-sol, gpt-6-astra, gpt-6-sol, gpt-6-luna, gpt-5.6-sol as allowed spawn overrides.
  defaultTiers: { cheap: 'gpt-6-luna', standard: 'gpt-6-sol', premium: 'gpt-6-astra' },
  reportsUsage: true,
  childEndEvent: 'SubagentStop',
  dispatchEvents: ['PreToolUse'],
  // Codex clamps SessionEnd hooks to 3 s (0.169.0, seen; hooks-codex.json).
  eventDeadlinesMs: { SessionEnd: 1900 },
};
