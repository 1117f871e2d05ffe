/**
 * Gemini CLI 0.61.0 chat files read forward, for `tiergate scan` and the drain's late-flush re-reads (chat-file.ts says
 * what the lines are). A parent file (`kind: "main"`) gives its own model requests and its invoke_agent calls (the
 * `toolCalls` copy of a model message: args, and the child's `agentId`); a child file (`kind: "subagent"`, under
 * `chats/<parent session id>/`) gives the child's requests and the child as a whole. Numbers and ids only.
 */
import { basename, dirname, join } from 'node:path';
import type { Outcome } from '../../contracts/observation.js';
import { extractEscalation, extractOutcome, tailText } from '../../observer/outcome.js';
import { readTextHead } from '../../io/read-capped.js';
import { readJsonLines } from '../../observer/json-lines.js';
import { asString, asTime, childSummary } from '../../observer/transcripts.js';
import type {
  ChildSummary,
  FileParse,
  ParseOptions,
  TranscriptDispatch,
  TranscriptParser,
  TranscriptRequest,
} from '../../observer/transcripts.js';
import { dispatchCallId, geminiUsage } from './chat-file.js';
import { DISPATCH_TOOL } from './dispatch-payload.js';
import { isRecord } from '../../contracts/record.js';

export const GEMINI_PARSE_MAX_BYTES = 2 * 1024 * 1024 * 1024;

type Obj = Record<string, unknown>;

/** `<tmp>/<project>/.project_root` holds the project's directory (0.61.0, source); read only for a main file. */
function projectRoot(chatsDir: string): string | null {
  try {
    const text = readTextHead(join(dirname(chatsDir), '.project_root'), 4096).trim();
    return text.startsWith('/') ? text : null;
  } catch {
    return null;
  }
}

export function parseGeminiChat(path: string, opts: ParseOptions = {}): FileParse {
  let header: Obj | null = null;
  const messages = new Map<string, Obj>();
  let summary: string | null = null;
  const res = readJsonLines(
    path,
    { maxBytes: opts.maxBytes ?? GEMINI_PARSE_MAX_BYTES, maxLineBytes: 16 * 1024 * 1024 },
    (rec) => {
      if (!isRecord(rec)) return;
      if (header === null && typeof rec.sessionId === 'string' && typeof rec.kind === 'string') {
        header = rec;
        return;
      }
      if (rec.type === 'gemini' && typeof rec.id === 'string') {
        // Written twice (bare, then with toolCalls): the later copy has everything the first had.
        messages.set(rec.id, rec);
        return;
      }
      if (isRecord(rec.$set) && typeof rec.$set.summary === 'string') summary = tailText(rec.$set.summary);
    },
  );
  const head = header as Obj | null;
  const isChild = head?.kind === 'subagent';
  const ownId = asString(head?.sessionId);
  // A child's requests belong to its parent's session: the folder it sits in is named by the parent's session id.
  const sessionId = isChild ? basename(dirname(path)) : ownId;
  const agentId = isChild ? (ownId ?? basename(path, '.jsonl')) : null;
  const dirs = Array.isArray(head?.directories) ? head!.directories : [];
  const project = isChild ? asString(dirs[0]) : projectRoot(dirname(path));

  const requests: TranscriptRequest[] = [];
  const dispatches: TranscriptDispatch[] = [];
  for (const m of messages.values()) {
    const usage = geminiUsage(m.tokens);
    const model = asString(m.model);
    const at = asTime(m.timestamp);
    if (usage)
      requests.push({
        key: `gemini:${ownId ?? path}:${m.id as string}`,
        model,
        usage,
        at,
        sessionId,
        agentId,
        sidechain: isChild,
      });
    if (isChild || !Array.isArray(m.toolCalls)) continue;
    for (const tc of m.toolCalls) {
      if (!isRecord(tc) || tc.name !== DISPATCH_TOOL) continue;
      const args = isRecord(tc.args) ? tc.args : {};
      dispatches.push({
        callId: dispatchCallId(m.id as string, args.prompt),
        sessionId,
        parentModel: model,
        requestedModel: null,
        subagentType: asString(args.agent_name),
        escalationFrom: extractEscalation(asString(args.prompt)),
        childAgentId: asString(tc.agentId),
        at,
      });
    }
  }

  let child: ChildSummary | null = null;
  if (isChild && agentId) {
    const times = requests.map((r) => r.at).filter((t): t is number => t !== null);
    const outcome: Outcome = extractOutcome(summary);
    child = childSummary(requests, {
      agentId,
      outcome,
      complete: summary !== null,
      startedAt: asTime(head?.startTime) ?? (times.length ? Math.min(...times) : null),
      endedAt: times.length ? Math.max(...times) : null,
    });
  }
  return {
    harness: 'gemini',
    sessionId,
    project,
    requests,
    dispatches,
    child,
    bytesRead: res.bytesRead,
    truncated: res.truncated,
  };
}

export const geminiTranscripts: TranscriptParser = { harness: 'gemini', parseFile: parseGeminiChat };
