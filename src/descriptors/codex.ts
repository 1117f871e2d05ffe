/** Codex CLI, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import { defineHarness } from './define.js';

export const codexHarness = defineHarness({
  name: 'Codex',
  // Codex 0.169.0 honours updatedInput only with permissionDecision "allow"; off unless the policy opts in.
  rewrite: (policy) => (policy.codexRewrite === true ? { field: 'model', kind: 'model' } : null),
  // Codex 0.169.0 lists gpt-6.1-sol, gpt-6-astra, gpt-6-sol, gpt-6-luna, gpt-5.6-sol as allowed spawn overrides.
  defaultTiers: { cheap: 'gpt-6-luna', standard: 'gpt-6-sol', premium: 'gpt-6-astra' },
  reportsUsage: true,
  childEndEvent: 'SubagentStop',
  childStop: "the child's next tool call (PreToolUse of a child thread, armed by SessionStart)",
  dispatchEvents: ['PreToolUse', 'ChildToolUse'],
  // Codex clamps SessionEnd hooks to 3 s (0.169.0, seen; hooks-codex.json).
  eventDeadlinesMs: { SessionEnd: 1900 },
  options: {
    // Codex honours a rewrite only with permissionDecision "allow" (docs/codex.md): off by default, deny-with-retry
    // instead. true grants more, so a project file may only move it toward false.
    codexRewrite: { values: [true, false], default: false, project: { kind: 'tighten', stricter: 'stricter' } },
  },
});
