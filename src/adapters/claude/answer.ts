/**
 * Decision -> Claude Code's native PreToolUse answer (2.1.328, reference claude-code.md §5).
 */
import { CLAUDE_MODEL_ALIASES } from '../../descriptors/claude.js';
import type { Decision } from '../../contracts/decision.js';

export type PreToolUseAnswer = { hookSpecificOutput: Record<string, unknown> } | null;

const LEGAL = new Set<string>(CLAUDE_MODEL_ALIASES);

/**
 * allow -> no output. correct -> `updatedInput` = the WHOLE original input with `model` set to an alias (a partial input
 * or a full id fails the tool's schema and the model sees an error, reference §5 rows A/B). No `permissionDecision`:
 * "allow" would also skip the user's own permission rules, and the rewrite is honoured without it (seen).
 * deny -> `permissionDecision: "deny"` with the retry text (the model sees it as `PreToolUse:Agent hook error: …`).
 * A correction that is not a legal alias is never sent: it would cancel the dispatch; the caller logs and allows.
 * ask (Decision.ask, only set in an attended session) -> `permissionDecision: "ask"` with the prompt's text: the TUI shows
 * "Hook PreToolUse:Agent requires confirmation for this tool: <reason> … Do you want to proceed? 1. Yes …" (2.1.332,
 * seen). In `-p` Claude Code denies an ask whatever the permission mode (the model reads the reason alone, seen), so an
 * unattended session is never asked: it gets the non-ask answer.
 */
export function preToolUseAnswer(decision: Decision, toolInput: Record<string, unknown>): PreToolUseAnswer {
  if (decision.ask)
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: decision.ask.message,
      },
    };
  if (decision.action === 'allow') return null;
  if (decision.action === 'deny') {
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: decision.message,
      },
    };
  }
  if (decision.field !== 'model' || !LEGAL.has(decision.value)) {
    throw new Error(`correction to ${decision.field}=${decision.value} is not a legal Agent model alias`);
  }
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { ...toolInput, model: decision.value } } };
}

/** SessionStart additionalContext: the policy in a few lines, so the model picks legal subagent models up front. */
export function sessionStartAnswer(text: string): { hookSpecificOutput: Record<string, unknown> } {
  return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } };
}
