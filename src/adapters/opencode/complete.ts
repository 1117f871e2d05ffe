/**
 * OpenCode 1.18.33 completion: `tool.execute.after` for `task` names the child session and the model it ran on; usage
 * comes from the SDK (`session.get` on the child: aggregated tokens, seen 38-131 ms). Pure translation here; the
 * plugin does the SDK call under a deadline.
 */
import type { CompletionObservation } from '../../contracts/observation.js';
import type { Usage } from '../../contracts/usage.js';
import { extractOutcome as parseOutcome } from '../../observer/outcome.js';
import { modelName, TASK_TOOL } from './observe.js';
import type { PendingCall } from './state.js';
import { isRecord } from '../../contracts/record.js';

type Rec = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

export type AfterFacts = {
  sessionId: string | null;
  callId: string | null;
  agent: string | null;
  childSessionId: string | null;
  model: string | null;
  finalText: string | null;
  state: string | null;
};

/** The facts `tool.execute.after` carries; null when the call is not a task. */
export function readAfter(input: unknown, output: unknown): AfterFacts | null {
  if (!isRecord(input) || input.tool !== TASK_TOOL || !isRecord(output)) return null;
  const args = isRecord(input.args) ? input.args : {};
  const meta = isRecord(output.metadata) ? output.metadata : {};
  const text = typeof output.output === 'string' ? output.output : '';
  const result = text.match(/<task_result>\n?([\s\S]*?)\n?<\/task_result>/);
  const state = text.match(/<task [^>]*state="([a-z]+)"/);
  return {
    sessionId: str(input.sessionID),
    callId: str(input.callID),
    agent: str(args.subagent_type),
    childSessionId: str(meta.sessionId),
    model: modelName(meta.model),
    finalText: result ? result[1]! : null,
    state: state ? state[1]! : null,
  };
}

/**
 * OpenCode `tokens` -> tiergate Usage. OpenCode's `input` already excludes cache reads (2000 prompt - 500 cached =
 * 1500, seen); `reasoning` is kept apart from `output` [inferred from the split], so it is added back here.
 */
export function usageFromTokens(tokens: unknown, requests = 1): Usage | null {
  if (!isRecord(tokens)) return null;
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  const reasoning = int(tokens.reasoning);
  return {
    input: int(tokens.input),
    output: int(tokens.output) + reasoning,
    cacheRead: int(cache.read),
    cacheWrite5m: int(cache.write),
    cacheWrite1h: 0,
    reasoning,
    requests: Math.max(1, requests),
  };
}

/** Counts assistant messages in a `session.messages` answer (each is one API request). */
export function countAssistantMessages(messages: unknown): number {
  if (!Array.isArray(messages)) return 1;
  return Math.max(1, messages.filter((m) => isRecord(m) && isRecord(m.info) && m.info.role === 'assistant').length);
}

export type ChildSession = { model?: unknown; tokens?: unknown; agent?: unknown };

export function completionObservation(
  facts: AfterFacts,
  child: ChildSession | null,
  requests: number,
  pending: PendingCall | undefined,
  now: number,
): CompletionObservation {
  const served = child ? modelName(child.model) : null;
  const usage = child ? usageFromTokens(child.tokens, requests) : null;
  return {
    kind: 'completion',
    harness: 'opencode',
    sessionId: facts.sessionId,
    callId: facts.callId,
    agentId: facts.childSessionId,
    subagentType: facts.agent,
    servedModel: served ?? facts.model,
    usage,
    status: facts.state === 'completed' || facts.state === null ? 'ok' : facts.state === 'error' ? 'error' : 'unknown',
    outcome: parseOutcome(facts.finalText),
    startedAt: pending?.startedAt ?? null,
    endedAt: now,
    usageSource: usage ? 'sdk' : 'none',
    dedupeKey: facts.childSessionId ? `opencode:${facts.childSessionId}` : null,
  };
}

/**
 * Did the correction take effect? Public reports say argument edits were ignored on some OpenCode builds; the
 * after-hook's args and metadata.model show what really ran (seen on 1.18.33). Returns a problem text or null.
 */
export function correctionProblem(pending: PendingCall | undefined, facts: AfterFacts): string | null {
  if (!pending || !pending.appliedAgent) return null;
  if (facts.agent !== null && facts.agent !== pending.appliedAgent) {
    return `correction-not-applied: set subagent_type ${pending.appliedAgent}, the task ran ${facts.agent}`;
  }
  if (pending.expectedModel && facts.model && facts.model !== pending.expectedModel) {
    return `correction-not-applied: expected the child on ${pending.expectedModel}, it ran on ${facts.model}`;
  }
  return null;
}
