/** Grok Build (xAI's `grok`), as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import { defineHarness } from './define.js';

export const grokHarness = defineHarness({
  name: 'Grok Build',
  // Grok 1.0.41 honours a PreToolUse `updatedInput` holding the whole spawn_subagent input with a new `model` (the
  // child's request named it, seen), and shows a `{"decision":"deny"}` reason to the model as the tool result (seen).
  // The model must be one Grok's catalog knows, or the call fails its schema: the dispatch hook narrows the legal
  // values to the catalog it reads (catalog.ts).
  rewrite: { field: 'model', kind: 'model' },
  // grok-4.6 is 1.0.41's default model and, with grok-4.5, all its offline catalog holds (`grok models`, seen);
  // grok-4.3 and grok-4.7 are xAI's cheaper and newer ids in the bundled prices. A tier Grok does not know is dropped
  // from a correction's choices by the catalog filter, never sent.
  defaultTiers: { cheap: 'grok-4.3', standard: 'grok-4.6', premium: 'grok-4.7' },
  childEndEvent: 'PostToolUse[spawn_subagent] / SubagentStop',
  dispatchEvents: ['PreToolUse'],
});
