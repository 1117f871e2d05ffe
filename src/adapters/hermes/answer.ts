/**
 * Decision -> what tiergate's Hermes plugin acts on (plugins/hermes/tiergate/__init__.py), for Hermes 0.19.0:
 *  - deny: `{"action":"block","message"}`, which the plugin returns from pre_tool_call as is; Hermes hands the model
 *    `{"error": message}` as the delegate_task result and starts no child (seen).
 *  - correct: `{"action":"correct","model"}`: delegate_task has no model argument, so the plugin rewrites `model` on
 *    the API requests of the child session the next subagent_start announces (llm_request middleware, seen honoured).
 *  - allow: no output.
 */
import type { Decision } from '../../contracts/decision.js';

export type HermesAnswer = { action: 'block'; message: string } | { action: 'correct'; model: string };

export function answerFor(decision: Decision): HermesAnswer | null {
  switch (decision.action) {
    case 'allow':
      return null;
    case 'deny':
      return { action: 'block', message: decision.message };
    case 'correct':
      return { action: 'correct', model: decision.value };
  }
}
