/**
 * Decision -> what Copilot CLI 1.0.102 acts on at preToolUse (reference/copilot-cli.md §5, every row seen):
 *  - deny: `permissionDecision: "deny"` + reason; the model sees `Denied by preToolUse hook: <reason>`.
 *  - correct: `modifiedArgs` with the WHOLE arguments and the new `model` (a partial object replaces the arguments and
 *    fails the tool's validation: `Invalid input: … "prompt": Required`). No permissionDecision: the rewrite is honoured
 *    without one, and "allow" would also skip the user's own permission rules.
 *  - allow: no output at all.
 *  - ask (Decision.ask): `permissionDecision: "ask"` + the prompt's text; the TUI shows "Hook permission request" with it
 *    and "Do you want to allow this tool call? 1. Yes 2. No"; `-p` (with or without --allow-all-tools) denies it:
 *    `Denied by preToolUse hook (unable to ask user for confirmation): <reason>` (1.0.102, seen).
 */
import type { Decision } from '../../contracts/decision.js';
import { MULTIPLIER_SOURCE } from './multipliers.js';

export type CopilotPreToolUseAnswer =
  | { permissionDecision: 'deny' | 'ask'; permissionDecisionReason: string }
  | { modifiedArgs: Record<string, unknown> };

export function answerFor(decision: Decision): CopilotPreToolUseAnswer | null {
  if (decision.ask)
    return {
      permissionDecision: 'ask',
      permissionDecisionReason: askText(decision.ask.message, decision.ask.otherwise),
    };
  switch (decision.action) {
    case 'allow':
      return null;
    case 'deny':
      return { permissionDecision: 'deny', permissionDecisionReason: reasonText(decision) };
    case 'correct':
      return { modifiedArgs: { ...decision.updatedInput, [decision.field]: decision.value } };
  }
}

/**
 * The prompt's text. In the TUI the person reads it above "Do you want to allow this tool call?"; in `-p` Copilot denies
 * the ask itself and the model reads `Denied by preToolUse hook (unable to ask user for confirmation): <this>` (1.0.102,
 * seen), so it ends with what the model is to do then.
 */
const askText = (message: string, otherwise: string): string =>
  otherwise ? `${message} If no one can answer: ${otherwise}` : message;

/**
 * Compared by premium-request multiplier (multipliers.ts), the engine's rates are multipliers, not dollars per million
 * tokens: the reason says so.
 */
function reasonText(d: Extract<Decision, { action: 'deny' }>): string {
  if (d.comparison?.child.price?.source !== MULTIPLIER_SOURCE) return d.message;
  return d.message.replace(
    /\((?:input|output|cacheRead|cacheWrite5m|cacheWrite1h) \$([\d.]+)\/M vs \$([\d.]+)\/M\)/,
    '(premium-request multiplier $1x vs $2x)',
  );
}
