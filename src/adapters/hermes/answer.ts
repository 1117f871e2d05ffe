/**
 * Decision -> what tiergate's Hermes plugin acts on (hermes/tiergate/__init__.py), for Hermes 0.19.0:
 *  - deny: `{"action":"block","message"}`, which the plugin returns from pre_tool_call as is; Hermes hands the model
 *    `{"error": message}` as the delegate_task result and starts no child (seen).
 *  - correct: `{"action":"correct","model"}`: delegate_task has no model argument, so the plugin rewrites `model` on
 *    the API requests of the child session the next subagent_start announces (llm_request middleware, seen honoured).
 *  - allow: no output.
 * The engine's deny text speaks of a call's model or agent; delegate_task has neither (the child's model is config.yaml
 * `delegation.model`, else the parent's), so the text is put in Hermes' terms: a retry of the same call would run on
 * the same model, and the cheaper choice is named as the config value to set.
 */
import type { Decision } from '../../contracts/decision.js';

export type HermesAnswer = { action: 'block'; message: string } | { action: 'correct'; model: string };

export function answerFor(decision: Decision): HermesAnswer | null {
  switch (decision.action) {
    case 'allow':
      return null;
    case 'deny':
      return { action: 'block', message: hermesText(decision.message) };
    case 'correct':
      return { action: 'correct', model: decision.value };
  }
}

const RETRY =
  /Retry the same dispatch (?:with model: "([^"]+)"(?: \(tier ([^)]+)\))?|without model[^.]*|with an agent[^.]*)\.$/;

export function hermesText(message: string): string {
  const text = message.replace(
    'tiergate: agent the requested agent runs on',
    "tiergate: delegate_task's child runs on",
  );
  const m = RETRY.exec(text);
  if (!m) return text;
  const head = text.slice(0, m.index);
  const choice = m[1]
    ? `set delegation.model: ${m[1]}${m[2] ? ` (tier ${m[2]})` : ''} in Hermes' config.yaml`
    : "take delegation.model out of Hermes' config.yaml, so children run on your model";
  return `${head}Hermes' delegate_task has no model argument, so the same call would be denied again: do the task yourself, or ask the user to ${choice}.`;
}
