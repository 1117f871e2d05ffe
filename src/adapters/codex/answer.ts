/**
 * Decision -> the JSON Codex 0.169.0 acts on at PreToolUse (reference/codex.md §5, every row seen):
 *  - deny: `permissionDecision: "deny"` + reason; the model sees `Tool call blocked by PreToolUse hook: <reason>. Tool: …`
 *  - correct: `permissionDecision: "allow"` + the WHOLE `updatedInput`; without "allow" Codex drops the rewrite silently.
 *  - allow: no output at all, so Codex's own permission flow is untouched.
 */
import type { Decision } from '../../contracts/decision.js';

export type CodexPreToolUseAnswer = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse';
    permissionDecision: 'allow' | 'deny';
    permissionDecisionReason?: string;
    updatedInput?: Record<string, unknown>;
  };
};

/** Codex appends `. Tool: <name>` to the reason, so a trailing period would read `…. Tool:`. */
function reasonText(message: string): string {
  return message.trim().replace(/[.\s]+$/, '');
}

export function answerFor(decision: Decision): CodexPreToolUseAnswer | null {
  switch (decision.action) {
    case 'allow':
      return null;
    case 'deny':
      return {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: reasonText(decision.message),
        },
      };
    case 'correct':
      return {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          // No reason on allow: the seen rewrite carried none, and the model need not read about the correction.
          permissionDecision: 'allow',
          updatedInput: { ...decision.updatedInput, [decision.field]: decision.value },
        },
      };
  }
}

/** SessionStart / SubagentStart context: Codex adds it as a developer message (seen, §5.1). */
export function contextAnswer(
  event: 'SessionStart' | 'SubagentStart',
  text: string,
): { hookSpecificOutput: { hookEventName: string; additionalContext: string } } {
  return { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
}
