/**
 * Decision -> what Copilot CLI 1.0.102 acts on at preToolUse (reference/copilot-cli.md §5, every row seen):
 *  - deny: `permissionDecision: "deny"` + reason; the model sees `Denied by preToolUse hook: <reason>`.
 *  - correct: `modifiedArgs` with the WHOLE arguments and the new `model` (a partial object replaces the arguments and
 *    fails the tool's validation: `Invalid input: … "prompt": Required`). No permissionDecision: the rewrite is honoured
 *    without one, and "allow" would also skip the user's own permission rules.
 *  - allow: no output at all.
 */
import type { Decision } from '../../contracts/decision.js';
import { MULTIPLIER_SOURCE } from './multipliers.js';

export type CopilotPreToolUseAnswer =
  | { permissionDecision: 'deny'; permissionDecisionReason: string }
  | { modifiedArgs: Record<string, unknown> };

export function answerFor(decision: Decision): CopilotPreToolUseAnswer | null {
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
