/** GitHub Copilot CLI, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import { defineHarness } from './define.js';

export const copilotHarness = defineHarness({
  name: 'GitHub Copilot CLI',
  // Copilot CLI 1.0.102 honours `modifiedArgs` carrying the whole `task` arguments with a new `model` (any string is
  // sent to the provider verbatim under BYOK, seen), and shows a preToolUse deny reason to the model (seen).
  rewrite: { field: 'model', kind: 'model' },
  // Ids Copilot CLI 1.0.102 names itself: its built-in `task` agent prefers gpt-5.6-luna, gpt-5.4-mini, claude-haiku-4.5
  // (definitions/task.agent.yaml); gpt-5.4 is its BYOK default in the reference runs; claude-opus-4.8 a custom agent's.
  defaultTiers: { cheap: 'gpt-5.4-mini', standard: 'gpt-5.4', premium: 'claude-opus-4.8' },
  childEndEvent: 'subagentStop',
  askPrompt: 'preToolUse permissionDecision "ask"; -p denies it itself, the model reading the non-ask retry',
  dispatchEvents: ['preToolUse'],
  // Copilot CLI 1.0.102's usage records on GitHub-hosted models carry `cost`: the premium-request multiplier.
  requestBilling: { unit: 'premium requests', by: 'GitHub' },
});
