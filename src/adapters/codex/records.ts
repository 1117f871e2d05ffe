/**
 * One Codex rollout line, decoded: the one reading of the records tiergate uses, shared by the tail reader
 * (rollout.ts, SubagentStop) and the forward reader (transcript.ts, scan and late flush). Seen on 0.169.0
 * (reference/codex.md §6); every line is `{timestamp, type, payload}`:
 *  - `session_meta`: thread id, root session id, parent thread (children), cwd;
 *  - `turn_context`: the model the turn requested (Codex never records the one the API answered with);
 *  - `token_usage_record`: one per API response (`response_id`, `usage`, the running `turn_token_usage`);
 *  - `event_msg` `token_count` (older rollouts: a running `total_token_usage` only), `task_complete` (written after
 *    SubagentStop), `item_completed` SubAgentActivity `kind:"started"` (joins the spawn's call_id to the child thread);
 *  - `response_item`: a `function_call` spawn_agent (call_id, arguments) or an assistant `message`.
 */
import { isRecord } from '../../contracts/record.js';
import type { Usage } from '../../contracts/usage.js';
import { asCount, asString, asTime, usageWithCacheInInput } from '../../observer/transcripts.js';

type Obj = Record<string, unknown>;

export type RolloutRecord = { at: number | null } & (
  | { kind: 'session-meta'; threadId: string | null; sessionId: string | null; cwd: string | null; isChild: boolean }
  | { kind: 'turn-context'; turnId: string | null; model: string | null }
  /** `usage` null: the record carries none to count (its turn id still names the turn). */
  | {
      kind: 'token-usage';
      turnId: string | null;
      responseId: string | null;
      threadId: string | null;
      ordinal: unknown;
      usage: Usage | null;
      turnUsage: Usage | null;
    }
  | { kind: 'token-count'; total: Obj }
  | { kind: 'task-complete'; turnId: string | null; lastMessage: string | null }
  | { kind: 'subagent-started'; callId: string | null; childThreadId: string | null }
  | { kind: 'spawn'; callId: string; args: Obj }
  | { kind: 'assistant-message'; content: unknown }
  /** A record nothing here reads (its timestamp still dates the thread). */
  | { kind: 'other' }
);

/** input_tokens includes cached reads (and writes); output includes reasoning (seen on 0.169.0). */
export function codexUsage(u: Obj): Usage {
  return usageWithCacheInInput({
    input: u.input_tokens,
    output: u.output_tokens,
    cacheRead: u.cached_input_tokens,
    cacheWrite: u.cache_write_input_tokens,
    reasoning: u.reasoning_output_tokens,
  });
}

/** The turn's requested model: `turn_context.model`, else its collaboration mode's settings (seen on 0.169.0). */
function turnModel(p: Obj): string | null {
  const settings =
    isRecord(p.collaboration_mode) && isRecord(p.collaboration_mode.settings) ? p.collaboration_mode.settings : null;
  return asString(p.model) ?? asString(settings?.model);
}

function spawnArgs(raw: unknown): Obj {
  try {
    const a = JSON.parse(String(raw ?? '{}')) as unknown;
    return isRecord(a) ? a : {};
  } catch {
    return {}; // arguments the model wrote may be invalid JSON: the call is kept without them
  }
}

/** A parsed line (`JSON.parse` of it) as the record tiergate reads; null when it is no `{timestamp, type, payload}` record. */
export function decodeRolloutRecord(line: unknown): RolloutRecord | null {
  if (!isRecord(line) || !isRecord(line.payload)) return null;
  const p = line.payload;
  const at = asTime(line.timestamp);
  switch (line.type) {
    case 'session_meta':
      return {
        kind: 'session-meta',
        at,
        threadId: asString(p.id),
        sessionId: asString(p.session_id) ?? asString(p.id),
        cwd: asString(p.cwd),
        isChild: asString(p.parent_thread_id) !== null || p.thread_source === 'subagent',
      };
    case 'turn_context':
      return { kind: 'turn-context', at, turnId: asString(p.turn_id), model: turnModel(p) };
    case 'token_usage_record':
      return {
        kind: 'token-usage',
        at,
        turnId: asString(p.turn_id),
        responseId: asString(p.response_id),
        threadId: asString(p.thread_id),
        ordinal: line.ordinal,
        usage: isRecord(p.usage) ? codexUsage(p.usage) : null,
        turnUsage: isRecord(p.turn_token_usage) ? codexUsage(p.turn_token_usage) : null,
      };
    case 'event_msg':
      if (p.type === 'token_count' && isRecord(p.info) && isRecord(p.info.total_token_usage))
        return { kind: 'token-count', at, total: p.info.total_token_usage };
      if (p.type === 'task_complete')
        return { kind: 'task-complete', at, turnId: asString(p.turn_id), lastMessage: asString(p.last_agent_message) };
      if (
        p.type === 'item_completed' &&
        isRecord(p.item) &&
        p.item.type === 'SubAgentActivity' &&
        p.item.kind === 'started'
      ) {
        return {
          kind: 'subagent-started',
          at,
          callId: asString(p.item.id),
          childThreadId: asString(p.item.agent_thread_id),
        };
      }
      return { kind: 'other', at };
    case 'response_item': {
      if (p.type === 'function_call' && p.name === 'spawn_agent') {
        const callId = asString(p.call_id);
        return callId ? { kind: 'spawn', at, callId, args: spawnArgs(p.arguments) } : { kind: 'other', at };
      }
      if (p.type === 'message' && p.role === 'assistant') return { kind: 'assistant-message', at, content: p.content };
      return { kind: 'other', at };
    }
    default:
      return { kind: 'other', at };
  }
}
