/**
 * Copilot CLI's session file (events.jsonl, reference §6, seen on 1.0.102), read forward for `tiergate scan`, the
 * late-flush reconciliation and the subagentStop hook. One file holds the parent and every child:
 *  - `session.start`: session id, the project (`context.cwd`);
 *  - `session.usage_record`: one per API response (`usage.model`, tokens, `cost` = the premium-request multiplier, 0
 *    under BYOK), the child's tagged with its `agentId`;
 *  - `tool.execution_start` of `task`: the dispatch (`toolCallId`, the parent's `model`, the call's arguments);
 *  - `subagent.started` / `subagent.completed` / `subagent.failed` (with `agentId`): the child, joined to its dispatch by
 *    `toolCallId`; completed only after the hooks of its end (subagent.completed follows subagentStop: seen), so a
 *    child read before that is pending;
 *  - the child's last `assistant.message`: its outcome tokens (the text itself is never kept).
 * Copilot records the requested model id and never the one the API answered with (seen: an API answering
 * `gpt-demo-served-model` left every line at the requested id), so "served" here is what was requested per request.
 */
import type { Outcome } from '../../contracts/observation.js';
import { extractEscalation, extractOutcome, tailText } from '../../observer/outcome.js';
import { linesWith, readJsonLines } from '../../observer/json-lines.js';
import { asTime, childSummary } from '../../observer/transcripts.js';
import type {
  ChildSummary,
  FileParse,
  ParseOptions,
  TranscriptDispatch,
  TranscriptParser,
  TranscriptRequest,
} from '../../observer/transcripts.js';
import { eventOf, multiplierOf, usageFromRecord } from './events.js';
import { learnFromFile } from './multipliers.js';

export const COPILOT_PARSE_MAX_BYTES = 2 * 1024 * 1024 * 1024;
/** Lines worth parsing; system messages (~28 KB each) and the rest are skipped unparsed. */
const interesting = linesWith(
  '"session.start"',
  '"session.usage_record"',
  '"tool.execution_start"',
  '"subagent.',
  '"assistant.message"',
);

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

type Child = {
  agentId: string;
  callId: string | null;
  subagentType: string | null;
  requestedModel: string | null;
  startedAt: number | null;
  endedAt: number | null;
  done: boolean;
  finalText: string | null;
};

/** A request's premium-request multiplier, by request key (GitHub-hosted models only; BYOK reports 0). */
export type Multipliers = Map<string, number>;

export type CopilotParse = FileParse & { children: ChildSummary[]; multipliers: Multipliers };

/** `startOffset`: read only from there (a hook's tail read); the line it falls in is skipped as torn. */
export function parseCopilotEvents(path: string, opts: ParseOptions & { startOffset?: number } = {}): CopilotParse {
  let sessionId: string | null = null;
  let project: string | null = null;
  const requests: TranscriptRequest[] = [];
  const seen = new Set<string>();
  const multipliers: Multipliers = new Map();
  const dispatches = new Map<string, TranscriptDispatch>();
  const children = new Map<string, Child>();
  let n = 0;

  const res = readJsonLines(
    path,
    {
      maxBytes: opts.maxBytes ?? COPILOT_PARSE_MAX_BYTES,
      startOffset: opts.startOffset ?? 0,
      keep: interesting,
    },
    (value) => {
      const e = eventOf(value);
      if (!e) return;
      const at = asTime(e.timestamp);
      const d = e.data;
      n++;
      switch (e.type) {
        case 'session.start': {
          sessionId ??= str(d.sessionId);
          const ctx = d.context as Record<string, unknown> | undefined;
          project ??= str(ctx?.cwd);
          return;
        }
        case 'session.usage_record': {
          const u = d.usage;
          if (typeof u !== 'object' || u === null) return;
          const usage = u as Record<string, unknown>;
          const accounting = usage.accounting as Record<string, unknown> | undefined;
          const key =
            str(usage.apiCallId) ?? str(accounting?.usageId) ?? `${sessionId ?? ''}:${e.agentId ?? 'main'}:${n}`;
          if (seen.has(key)) return;
          seen.add(key);
          const m = multiplierOf(usage);
          if (m !== null) multipliers.set(key, m);
          requests.push({
            key,
            model: str(usage.model),
            usage: usageFromRecord(usage),
            at,
            sessionId,
            agentId: e.agentId,
            sidechain: e.agentId !== null,
          });
          return;
        }
        case 'tool.execution_start': {
          const callId = str(d.toolCallId);
          if (d.toolName !== 'task' || !callId) return;
          const args = (typeof d.arguments === 'object' && d.arguments !== null ? d.arguments : {}) as Record<
            string,
            unknown
          >;
          dispatches.set(callId, {
            callId,
            sessionId,
            parentModel: str(d.model),
            requestedModel: str(args.model),
            subagentType: str(args.agent_type),
            escalationFrom: extractEscalation(str(args.prompt)),
            childAgentId: null,
            at,
          });
          return;
        }
        case 'subagent.started': {
          if (!e.agentId) return;
          const callId = str(d.toolCallId);
          children.set(e.agentId, {
            agentId: e.agentId,
            callId,
            subagentType: str(d.agentType) ?? str(d.agentName),
            requestedModel: str(d.model),
            startedAt: at,
            endedAt: at,
            done: false,
            finalText: null,
          });
          const disp = callId ? dispatches.get(callId) : undefined;
          if (disp) disp.childAgentId = e.agentId;
          return;
        }
        case 'subagent.completed':
        case 'subagent.failed': {
          const c = e.agentId ? children.get(e.agentId) : undefined;
          if (!c) return;
          c.done = true;
          c.endedAt = at ?? c.endedAt;
          return;
        }
        case 'assistant.message': {
          const c = e.agentId ? children.get(e.agentId) : undefined;
          if (!c) return;
          const text = str(d.content);
          if (text) c.finalText = tailText(text);
          c.endedAt = at ?? c.endedAt;
          return;
        }
        default:
          return;
      }
    },
  );

  const summaries: ChildSummary[] = [...children.values()].map((c) => {
    const mine = requests.filter((r) => r.agentId === c.agentId);
    // The highest multiplier any of its requests reported: one model per child, so one value, as Copilot billed it.
    const billed = mine.map((r) => multipliers.get(r.key)).filter((m): m is number => m !== undefined);
    const outcome: Outcome = extractOutcome(c.finalText);
    c.finalText = null;
    return childSummary(mine, {
      agentId: c.agentId,
      callId: c.callId,
      subagentType: c.subagentType,
      requestedModel: c.requestedModel,
      servedModel: c.requestedModel,
      outcome,
      complete: c.done,
      startedAt: c.startedAt,
      endedAt: c.endedAt,
      multiplier: billed.length ? Math.max(...billed) : null,
    });
  });
  return {
    harness: 'copilot',
    sessionId,
    project,
    requests,
    dispatches: [...dispatches.values()],
    child: null,
    children: summaries,
    multipliers,
    bytesRead: res.bytesRead,
    truncated: res.truncated,
  };
}

export const copilotTranscripts: TranscriptParser = {
  harness: 'copilot',
  parseFile: parseCopilotEvents,
  // A scan of old session files teaches the dispatch hook's multiplier table too (each entry dated by its request).
  learn: learnFromFile,
};
