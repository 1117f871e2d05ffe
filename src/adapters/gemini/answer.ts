/**
 * Decision -> what Gemini CLI 0.61.0 acts on at BeforeTool for invoke_agent (reference/gemini-cli.md §5, every row seen):
 *  - deny: `{"decision":"deny","reason"}`; the model reads `Tool execution blocked: <reason>` and can retry;
 *  - correct: `hookSpecificOutput.tool_input` with the WHOLE input: 0.61.0 takes the hook's object as the entire new
 *    input (a partial one failed validation: "params must have required property 'prompt'"), whatever its docs say
 *    about merging; only agent_name differs from the call's;
 *  - allow: no output at all, so Gemini's own flow (and any other hook) is untouched.
 * Exit code 2 would also block, but it is never used: tiergate exits 0 and speaks only through this JSON.
 */
import type { Decision } from '../../contracts/decision.js';

export type GeminiBeforeToolAnswer =
  | { decision: 'deny'; reason: string }
  | { hookSpecificOutput: { hookEventName: 'BeforeTool'; tool_input: Record<string, unknown> } };

export function answerFor(decision: Decision): GeminiBeforeToolAnswer | null {
  switch (decision.action) {
    case 'allow':
      return null;
    case 'deny':
      return { decision: 'deny', reason: decision.message };
    case 'correct':
      return {
        hookSpecificOutput: {
          hookEventName: 'BeforeTool',
          tool_input: { ...decision.updatedInput, [decision.field]: decision.value },
        },
      };
  }
}
