/**
 * Codex rollouts (reference/codex.md §6, seen on 0.169.0), read forward for scan and late-flush reconciliation:
 *  - `session_meta`: thread id, root session id, parent thread (children), cwd;
 *  - `turn_context.model`: the model the turn requested (Codex never records the one the API answered with);
 *  - one `token_usage_record` per API response (`response_id`, `usage`); older rollouts have only `event_msg`
 *    `token_count`, whose running `total_token_usage` is differenced instead;
 *  - parent: `function_call` spawn_agent (call_id, arguments.model) and `item_completed` SubAgentActivity
 *    `kind:"started"` joining call_id to the child thread id exactly;
 *  - child: `task_complete.last_agent_message` (written after SubagentStop) or the last assistant message.
 */
import type { Usage } from '../../contracts/usage.js';
import type { Outcome } from '../../contracts/observation.js';
import { extractEscalation, extractOutcome, tailText } from '../../observer/outcome.js';
import { readLinesForward } from '../../observer/tail.js';
import { isRecord } from '../../contracts/record.js';
import {
  asCount, asString, asTime, dominantModel, sumUsage,
  type ChildSummary, type FileParse, type ParseOptions, type TranscriptDispatch, type TranscriptParser, type TranscriptRequest,
} from '../../observer/transcripts.js';

export const CODEX_PARSE_MAX_BYTES = 2 * 1024 * 1024 * 1024;
/** Lines that can hold what is read here are small; instructions and tool catalogs (20+ KB) are skipped unparsed. */
const INTERESTING = [
  Buffer.from('"type":"session_meta"'),
  Buffer.from('"type":"turn_context"'),
  Buffer.from('"type":"token_usage_record"'),
  Buffer.from('"token_count"'),
  Buffer.from('"task_complete"'),
  Buffer.from('"spawn_agent"'),
  Buffer.from('"SubAgentActivity"'),
  Buffer.from('"role":"assistant"'),
];
const SESSION_META = INTERESTING[0]!;

type Obj = Record<string, unknown>;

/** input_tokens includes cached reads (and writes); output includes reasoning (seen on 0.169.0). */
export function codexUsage(u: Obj): Usage {
  const cacheRead = asCount(u.cached_input_tokens);
  const cacheWrite = asCount(u.cache_write_input_tokens);
  return {
    input: Math.max(0, asCount(u.input_tokens) - cacheRead - cacheWrite),
    output: asCount(u.output_tokens),
    cacheRead,
    cacheWrite5m: cacheWrite,
    cacheWrite1h: 0,
    reasoning: asCount(u.reasoning_output_tokens),
    requests: 1,
  };
}

const FIELDS = ['input_tokens', 'cached_input_tokens', 'cache_write_input_tokens', 'output_tokens', 'reasoning_output_tokens'] as const;

function assistantText(content: unknown): string | null {
  if (!Array.isArray(content)) return null;
  let text = '';
  for (const b of content) if (isRecord(b) && typeof b.text === 'string') text += `${b.text}\n`;
  return text ? tailText(text) : null;
}

/** One child turn as the rollout tells it: turn_context -> token_usage_records -> task_complete, all with its turn_id. */
type Turn = { turnId: string; model: string | null; startedAt: number | null; endedAt: number | null; outcome: Outcome | null;
  finalText: string | null; complete: boolean; usageAfterStart: boolean };

function turnSummary(t: Turn, agentId: string, requests: readonly TranscriptRequest[]): ChildSummary {
  const mine = requests.filter((r) => r.turnId === t.turnId);
  return {
    agentId, callId: null, subagentType: null, requestedModel: null, servedModel: dominantModel(mine) ?? t.model,
    usage: sumUsage(mine), outcome: t.outcome ?? extractOutcome(t.finalText), complete: t.complete || t.usageAfterStart,
    incomplete: false, startedAt: t.startedAt, endedAt: t.endedAt, turnId: t.turnId,
  };
}

export function parseCodexRollout(path: string, opts: ParseOptions = {}): FileParse {
  let threadId: string | null = null;
  let sessionId: string | null = null;
  let project: string | null = null;
  let isChild = false;
  let model: string | null = null;
  let firstAt: number | null = null;
  let lastAt: number | null = null;
  let finalText: string | null = null;
  let taskComplete = false;
  let usageAfterTurn = false;
  const records: TranscriptRequest[] = [];
  const seen = new Set<string>();
  const fromCounts: TranscriptRequest[] = [];
  let prevTotal: Obj | null = null;
  const dispatches = new Map<string, TranscriptDispatch>();
  const turns = new Map<string, Turn>();
  let current: Turn | null = null;
  let recordsWithoutTurn = 0;
  const turnOf = (id: string | null): Turn | null => (id ? turns.get(id) ?? null : current);

  const res = readLinesForward(path, { maxBytes: opts.maxBytes ?? CODEX_PARSE_MAX_BYTES }, (buf, start, end) => {
    const line = buf.subarray(start, end);
    // session_meta lines are large (base instructions) but come first and carry the ids.
    if (end - start > 16 * 1024 && line.indexOf(SESSION_META) < 0) return;
    if (!INTERESTING.some((p) => line.indexOf(p) >= 0)) return;
    let obj: unknown;
    try {
      obj = JSON.parse(line.toString('utf8'));
    } catch {
      return;
    }
    if (!isRecord(obj) || !isRecord(obj.payload)) return;
    const p = obj.payload;
    const at = asTime(obj.timestamp);
    if (at !== null) {
      firstAt ??= at;
      lastAt = at;
      if (current) current.endedAt = at;
    }
    switch (obj.type) {
      case 'session_meta': {
        threadId ??= asString(p.id);
        sessionId ??= asString(p.session_id) ?? asString(p.id);
        project ??= asString(p.cwd);
        if (asString(p.parent_thread_id) || p.thread_source === 'subagent') isChild = true;
        return;
      }
      case 'turn_context': {
        model = asString(p.model) ?? model;
        usageAfterTurn = false;
        const id = asString(p.turn_id);
        if (id && !turns.has(id)) {
          current = { turnId: id, model, startedAt: at, endedAt: at, outcome: null, finalText: null, complete: false, usageAfterStart: false };
          turns.set(id, current);
        }
        return;
      }
      case 'token_usage_record': {
        if (!isRecord(p.usage)) return;
        const key = asString(p.response_id) ?? `${asString(p.thread_id) ?? threadId}:${String(obj.ordinal ?? at)}`;
        usageAfterTurn = true;
        if (seen.has(key)) return;
        seen.add(key);
        const turnId = asString(p.turn_id);
        const turn = turnOf(turnId);
        if (turn) turn.usageAfterStart = true;
        if (!turnId || !turns.has(turnId)) recordsWithoutTurn++;
        records.push({ key, model, usage: codexUsage(p.usage), at, sessionId, agentId: isChild ? threadId : null, sidechain: isChild, turnId });
        return;
      }
      case 'response_item': {
        if (p.type === 'function_call' && p.name === 'spawn_agent') {
          const callId = asString(p.call_id);
          if (!callId) return;
          let args: Obj = {};
          try {
            const a = JSON.parse(String(p.arguments ?? '{}')) as unknown;
            if (isRecord(a)) args = a;
          } catch {
            /* arguments the model wrote may be invalid JSON: keep the call without them */
          }
          dispatches.set(callId, {
            callId, sessionId, parentModel: model, requestedModel: asString(args.model),
            subagentType: asString(args.agent_type) ?? asString(args.task_name),
            escalationFrom: extractEscalation(asString(args.message)), childAgentId: null, at,
          });
        } else if (p.type === 'message' && p.role === 'assistant') {
          finalText = assistantText(p.content) ?? finalText;
          if (current) current.finalText = assistantText(p.content) ?? current.finalText;
        }
        return;
      }
      case 'event_msg': {
        if (p.type === 'token_count' && isRecord(p.info) && isRecord(p.info.total_token_usage)) {
          usageAfterTurn = true;
          const total = p.info.total_token_usage;
          const delta: Obj = {};
          let any = false;
          for (const f of FIELDS) {
            const d = asCount(total[f]) - asCount(prevTotal?.[f]);
            delta[f] = Math.max(0, d);
            if (d > 0) any = true;
          }
          prevTotal = total;
          if (any) {
            fromCounts.push({
              key: `${threadId}:total:${asCount(total.total_tokens)}:${asCount(total.input_tokens)}`,
              model, usage: codexUsage(delta), at, sessionId, agentId: isChild ? threadId : null, sidechain: isChild,
            });
          }
        } else if (p.type === 'task_complete') {
          taskComplete = true;
          const last = asString(p.last_agent_message);
          if (last) finalText = tailText(last);
          const turn = turnOf(asString(p.turn_id));
          if (turn) {
            turn.complete = true;
            if (last) turn.finalText = tailText(last);
            // Only outcome tokens are kept per turn, never the text.
            turn.outcome = extractOutcome(turn.finalText);
            turn.finalText = null;
          }
        } else if (p.type === 'item_completed' && isRecord(p.item) && p.item.type === 'SubAgentActivity' && p.item.kind === 'started') {
          const callId = asString(p.item.id);
          const d = callId ? dispatches.get(callId) : undefined;
          if (d) d.childAgentId = asString(p.item.agent_thread_id);
        }
        return;
      }
      default:
        return;
    }
  });

  // token_usage_record is per response; rollouts without it (older Codex) fall back to token_count differences.
  const requests = records.length > 0 ? records : fromCounts;
  const outcome = extractOutcome(finalText);
  finalText = null;
  // Per-turn rows only when every response names a turn this file started (rollouts before turn ids keep one row).
  const childTurns = isChild && threadId && records.length > 0 && recordsWithoutTurn === 0
    ? [...turns.values()].filter((t) => records.some((r) => r.turnId === t.turnId)).map((t) => turnSummary(t, threadId!, records))
    : undefined;
  for (const t of turns.values()) t.finalText = null;
  return {
    harness: 'codex',
    sessionId,
    project,
    requests,
    dispatches: [...dispatches.values()],
    child: isChild && threadId
      ? {
          agentId: threadId, callId: null, subagentType: null, requestedModel: null,
          servedModel: dominantModel(requests), usage: sumUsage(requests), outcome,
          complete: taskComplete || usageAfterTurn, incomplete: false, startedAt: firstAt, endedAt: lastAt,
        }
      : null,
    ...(childTurns ? { childTurns } : {}),
    bytesRead: res.bytesRead,
    truncated: res.truncated,
  };
}

export const codexTranscripts: TranscriptParser = { harness: 'codex', oneChildPerFile: true, parseFile: parseCodexRollout };
