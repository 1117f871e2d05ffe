/**
 * Codex rollouts read forward for scan and late-flush reconciliation; each line decoded by records.ts (shared with the
 * tail reader, rollout.ts). Usage comes from one `token_usage_record` per API response; older rollouts have only
 * `token_count`, whose running total is differenced instead. A parent's spawn_agent calls are joined to their child
 * thread by SubAgentActivity `started`; a child's outcome is its `task_complete` message or its last assistant message.
 */
import type { Usage } from '../../contracts/usage.js';
import type { Outcome } from '../../contracts/observation.js';
import { extractEscalation, extractOutcome, tailText } from '../../observer/outcome.js';
import { linesWith, readJsonLines } from '../../observer/json-lines.js';
import { isRecord } from '../../contracts/record.js';
import { codexUsage, decodeRolloutRecord } from './records.js';
import { asCount, asString, asTime, childSummary } from '../../observer/transcripts.js';
import type {
  ChildSummary,
  FileParse,
  ParseOptions,
  TranscriptDispatch,
  TranscriptParser,
  TranscriptRequest,
} from '../../observer/transcripts.js';

export const CODEX_PARSE_MAX_BYTES = 2 * 1024 * 1024 * 1024;
/** Lines that can hold what is read here are small; instructions and tool catalogs (20+ KB) are skipped unparsed. */
const interesting = linesWith(
  '"type":"session_meta"',
  '"type":"turn_context"',
  '"type":"token_usage_record"',
  '"token_count"',
  '"task_complete"',
  '"spawn_agent"',
  '"SubAgentActivity"',
  '"role":"assistant"',
);
const sessionMeta = linesWith('"type":"session_meta"');

type Obj = Record<string, unknown>;

export { codexUsage };

const FIELDS = [
  'input_tokens',
  'cached_input_tokens',
  'cache_write_input_tokens',
  'output_tokens',
  'reasoning_output_tokens',
] as const;

function assistantText(content: unknown): string | null {
  if (!Array.isArray(content)) return null;
  let text = '';
  for (const b of content) if (isRecord(b) && typeof b.text === 'string') text += `${b.text}\n`;
  return text ? tailText(text) : null;
}

/** One child turn as the rollout tells it: turn_context -> token_usage_records -> task_complete, all with its turn_id. */
type Turn = {
  turnId: string;
  model: string | null;
  startedAt: number | null;
  endedAt: number | null;
  outcome: Outcome | null;
  finalText: string | null;
  complete: boolean;
  usageAfterStart: boolean;
};

function turnSummary(t: Turn, agentId: string, requests: readonly TranscriptRequest[]): ChildSummary {
  return childSummary(
    requests.filter((r) => r.turnId === t.turnId),
    {
      agentId,
      servedModel: t.model,
      outcome: t.outcome ?? extractOutcome(t.finalText),
      complete: t.complete || t.usageAfterStart,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      turnId: t.turnId,
    },
  );
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
  const turnOf = (id: string | null): Turn | null => (id ? (turns.get(id) ?? null) : current);

  // session_meta lines are large (base instructions) but come first and carry the ids.
  const keep = (line: Buffer) => (line.length <= 16 * 1024 || sessionMeta(line)) && interesting(line);
  const res = readJsonLines(path, { maxBytes: opts.maxBytes ?? CODEX_PARSE_MAX_BYTES, keep }, (value) => {
    const rec = decodeRolloutRecord(value);
    if (!rec) return;
    const at = rec.at;
    if (at !== null) {
      firstAt ??= at;
      lastAt = at;
      if (current) current.endedAt = at;
    }
    switch (rec.kind) {
      case 'session-meta': {
        threadId ??= rec.threadId;
        sessionId ??= rec.sessionId;
        project ??= rec.cwd;
        if (rec.isChild) isChild = true;
        return;
      }
      case 'turn-context': {
        model = rec.model ?? model;
        usageAfterTurn = false;
        const id = rec.turnId;
        if (id && !turns.has(id)) {
          current = {
            turnId: id,
            model,
            startedAt: at,
            endedAt: at,
            outcome: null,
            finalText: null,
            complete: false,
            usageAfterStart: false,
          };
          turns.set(id, current);
        }
        return;
      }
      case 'token-usage': {
        if (!rec.usage) return;
        const key = rec.responseId ?? `${rec.threadId ?? threadId}:${String(rec.ordinal ?? at)}`;
        usageAfterTurn = true;
        if (seen.has(key)) return;
        seen.add(key);
        const turnId = rec.turnId;
        const turn = turnOf(turnId);
        if (turn) turn.usageAfterStart = true;
        if (!turnId || !turns.has(turnId)) recordsWithoutTurn++;
        records.push({
          key,
          model,
          usage: rec.usage,
          at,
          sessionId,
          agentId: isChild ? threadId : null,
          sidechain: isChild,
          turnId,
        });
        return;
      }
      case 'spawn': {
        const args = rec.args;
        dispatches.set(rec.callId, {
          callId: rec.callId,
          sessionId,
          parentModel: model,
          requestedModel: asString(args.model),
          subagentType: asString(args.agent_type) ?? asString(args.task_name),
          escalationFrom: extractEscalation(asString(args.message)),
          childAgentId: null,
          at,
        });
        return;
      }
      case 'assistant-message': {
        finalText = assistantText(rec.content) ?? finalText;
        if (current) current.finalText = assistantText(rec.content) ?? current.finalText;
        return;
      }
      case 'token-count': {
        usageAfterTurn = true;
        const total = rec.total;
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
            model,
            usage: codexUsage(delta),
            at,
            sessionId,
            agentId: isChild ? threadId : null,
            sidechain: isChild,
          });
        }
        return;
      }
      case 'task-complete': {
        taskComplete = true;
        const last = rec.lastMessage;
        if (last) finalText = tailText(last);
        const turn = turnOf(rec.turnId);
        if (turn) {
          turn.complete = true;
          if (last) turn.finalText = tailText(last);
          // Only outcome tokens are kept per turn, never the text.
          turn.outcome = extractOutcome(turn.finalText);
          turn.finalText = null;
        }
        return;
      }
      case 'subagent-started': {
        const d = rec.callId ? dispatches.get(rec.callId) : undefined;
        if (d) d.childAgentId = rec.childThreadId;
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
  const childTurns =
    isChild && threadId && records.length > 0 && recordsWithoutTurn === 0
      ? [...turns.values()]
          .filter((t) => records.some((r) => r.turnId === t.turnId))
          .map((t) => turnSummary(t, threadId!, records))
      : undefined;
  for (const t of turns.values()) t.finalText = null;
  return {
    harness: 'codex',
    sessionId,
    project,
    requests,
    dispatches: [...dispatches.values()],
    child:
      isChild && threadId
        ? childSummary(requests, {
            agentId: threadId,
            outcome,
            complete: taskComplete || usageAfterTurn,
            startedAt: firstAt,
            endedAt: lastAt,
          })
        : null,
    ...(childTurns ? { childTurns } : {}),
    bytesRead: res.bytesRead,
    truncated: res.truncated,
  };
}

export const codexTranscripts: TranscriptParser = {
  harness: 'codex',
  oneChildPerFile: true,
  parseFile: parseCodexRollout,
};
