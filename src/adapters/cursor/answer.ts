/**
 * Decision -> Cursor's hook JSON (documentation only, cursor.md §4). Cursor always gets valid JSON from a permission
 * hook: a public project reports that a missing or invalid answer blocks subagentStart even with failClosed off.
 * Claude-style `hookSpecificOutput` is not understood by Cursor, so it is never used here.
 */
import type { Decision } from '../../contracts/decision.js';
import type { HookAnswer } from '../../contracts/hook.js';

export const ALLOW: HookAnswer = { stdout: '{"permission":"allow"}\n' };
/** subagentStop / stop accept only `followup_message`; tiergate never continues the agent, so it answers `{}`. */
export const EMPTY: HookAnswer = { stdout: '{}\n' };

/**
 * Cursor cannot take a rewrite here (no verified `updated_input` for the model), so a correction is answered as a
 * deny naming the corrected value as the retry.
 */
export function cursorAnswer(d: Decision): HookAnswer {
  if (d.action === 'allow') return ALLOW;
  const message = d.action === 'deny' ? d.message : `tiergate: ${d.summary}; retry with model "${d.value}"`;
  return { stdout: `${JSON.stringify({ permission: 'deny', user_message: message, agent_message: message })}\n` };
}
