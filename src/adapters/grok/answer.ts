/**
 * Decision -> what Grok Build 1.0.41 acts on at PreToolUse (reference/grok.md B.3, B.5; docs/grok.md):
 *  - deny: `{"decision":"deny","reason"}`; the model reads `Hook denied: <reason>` as the tool result (seen).
 *  - correct: `hookSpecificOutput.updatedInput` with the WHOLE input and the new `model`: it replaces the input
 *    outright, so a partial one fails the tool's schema and blocks the spawn.
 *  - allow: no output at all (exit 0).
 * Never exit 2: Grok reads it as a denial. tiergate's faults end in no output and exit 0 (the runner's fail-open).
 */
import type { Decision } from '../../contracts/decision.js';

export type GrokPreToolUseAnswer =
  | { decision: 'deny'; reason: string }
  | { hookSpecificOutput: { hookEventName: 'PreToolUse'; updatedInput: Record<string, unknown> } };

export function answerFor(decision: Decision): GrokPreToolUseAnswer | null {
  switch (decision.action) {
    case 'allow':
      return null;
    case 'deny':
      return { decision: 'deny', reason: decision.message };
    case 'correct':
      return {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          updatedInput: { ...decision.updatedInput, [decision.field]: decision.value },
        },
      };
  }
}
