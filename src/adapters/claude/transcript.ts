/**
 * Claude Code transcripts (reference/claude-code.md §6, seen on 2.1.328):
 *  - `assistant` lines carry `message.model` (the model the API answered with, not the request) and `message.usage`;
 *  - one response may be written as several `assistant` records with the same message.id/requestId, early ones with
 *    snapshot usage (anthropics/claude-code#84223): grouped by message.id + requestId, the largest value per field kept;
 *  - child transcripts live in `<session>/subagents/agent-<id>.jsonl` (workflow agents one level deeper) with an
 *    `agent-<id>.meta.json` sidecar whose `toolUseId` joins the child to its dispatch exactly.
 * Only numbers, ids and the final answer's outcome tokens leave this module.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Usage } from '../../contracts/usage.js';
import { claudeUsage } from './usage.js';
import { extractEscalation, extractOutcome, tailText } from '../../observer/outcome.js';
import { readJsonLines } from '../../observer/json-lines.js';
import { isRecord } from '../../contracts/record.js';
import { asString, asTime, childSummary } from '../../observer/transcripts.js';
import type {
  ChildSummary,
  FileParse,
  ParseOptions,
  TranscriptDispatch,
  TranscriptParser,
  TranscriptRequest,
} from '../../observer/transcripts.js';
import { baseName, dirName, joinPath } from '../../io/paths.js';

const ASSISTANT = Buffer.from('"type":"assistant"');
const AGENT_TOOLS = new Set(['Agent', 'Task']);
const META_MAX_BYTES = 64 * 1024;
/** Scan cap per file: generous (long sessions reach hundreds of MB) but finite. */
export const CLAUDE_PARSE_MAX_BYTES = 2 * 1024 * 1024 * 1024;

type Obj = Record<string, unknown>;

const maxUsage = (a: Usage, b: Usage): Usage => ({
  input: Math.max(a.input, b.input),
  output: Math.max(a.output, b.output),
  cacheRead: Math.max(a.cacheRead, b.cacheRead),
  cacheWrite5m: Math.max(a.cacheWrite5m, b.cacheWrite5m),
  cacheWrite1h: Math.max(a.cacheWrite1h, b.cacheWrite1h),
  reasoning: Math.max(a.reasoning, b.reasoning),
  requests: 1,
});

type AgentMeta = { toolUseId: string | null; agentType: string | null; model: string | null };

export function readAgentMeta(transcriptPath: string): AgentMeta | null {
  const name = baseName(transcriptPath);
  if (!/^agent-.+\.jsonl$/.test(name)) return null;
  const meta = joinPath(dirName(transcriptPath), name.replace(/\.jsonl$/, '.meta.json'));
  try {
    if (statSync(meta).size > META_MAX_BYTES) return null;
    const v = JSON.parse(readFileSync(meta, 'utf8')) as unknown;
    if (!isRecord(v)) return null;
    return { toolUseId: asString(v.toolUseId), agentType: asString(v.agentType), model: asString(v.model) };
  } catch {
    return null;
  }
}

const isTextBlock = (block: unknown): boolean =>
  isRecord(block) && block.type === 'text' && typeof block.text === 'string';

function hasText(content: unknown): content is unknown[] {
  return Array.isArray(content) && content.some(isTextBlock);
}

function finalText(content: unknown[]): string | null {
  let text = '';
  for (const block of content) if (isTextBlock(block)) text += `${(block as Obj).text as string}\n`;
  return text ? tailText(text) : null;
}

export function parseClaudeTranscript(path: string, opts: ParseOptions = {}): FileParse {
  const byKey = new Map<string, TranscriptRequest & { final: boolean }>();
  const dispatches: TranscriptDispatch[] = [];
  let sessionId: string | null = null;
  let project: string | null = null;
  let agentId: string | null = null;
  let sidechainSeen = false;
  // The last record with text: only a child's outcome needs it, so it is joined and cut once, at the end.
  let lastContent: unknown[] | null = null;
  let lastStop = false;
  let firstAt: number | null = null;
  let lastAt: number | null = null;

  // A line cut mid-write (live session) or foreign garbage parses to undefined and is skipped.
  const res = readJsonLines(path, { maxBytes: opts.maxBytes ?? CLAUDE_PARSE_MAX_BYTES, marker: ASSISTANT }, (obj) => {
    if (!isRecord(obj) || obj.type !== 'assistant' || !isRecord(obj.message)) return;
    const msg = obj.message;
    sessionId ??= asString(obj.sessionId);
    project ??= asString(obj.cwd);
    const sidechain = obj.isSidechain === true;
    if (sidechain) sidechainSeen = true;
    agentId ??= asString(obj.agentId);
    const at = asTime(obj.timestamp);
    if (at !== null) {
      firstAt ??= at;
      lastAt = at;
    }
    const model = asString(msg.model);
    const stop = msg.stop_reason !== null && msg.stop_reason !== undefined;
    if (hasText(msg.content)) (lastContent = msg.content), (lastStop = stop);
    else if (stop) lastStop = true;

    if (!sidechain && Array.isArray(msg.content)) {
      for (const block of msg.content) {
        if (!isRecord(block) || block.type !== 'tool_use' || !AGENT_TOOLS.has(String(block.name))) continue;
        const input = isRecord(block.input) ? block.input : {};
        const callId = asString(block.id);
        if (!callId) continue;
        dispatches.push({
          callId,
          sessionId: asString(obj.sessionId),
          parentModel: model,
          requestedModel: asString(input.model),
          subagentType: asString(input.subagent_type),
          escalationFrom: extractEscalation(asString(input.prompt)),
          childAgentId: null,
          at,
        });
      }
    }

    if (!isRecord(msg.usage) || model === '<synthetic>') return;
    const key = [asString(msg.id), asString(obj.requestId)].filter(Boolean).join(':');
    if (!key) return;
    const usage = claudeUsage(msg.usage);
    const prev = byKey.get(key);
    if (prev) {
      prev.usage = maxUsage(prev.usage, usage);
      prev.final ||= stop;
      return;
    }
    byKey.set(key, {
      key,
      model,
      usage,
      at,
      sessionId: asString(obj.sessionId),
      agentId: asString(obj.agentId),
      sidechain,
      final: stop,
    });
  });

  const requests = [...byKey.values()];
  let child: ChildSummary | null = null;
  if (sidechainSeen && agentId) {
    const meta = readAgentMeta(path);
    child = childSummary(requests, {
      agentId,
      callId: meta?.toolUseId ?? null,
      subagentType: meta?.agentType ?? null,
      requestedModel: meta?.model ?? null,
      outcome: extractOutcome(lastContent ? finalText(lastContent) : null),
      complete: lastStop,
      incomplete: requests.some((r) => !r.final),
      startedAt: firstAt,
      endedAt: lastAt,
    });
  }
  lastContent = null; // the text goes no further than this function
  return {
    harness: 'claude',
    sessionId,
    project,
    requests: requests.map(({ final: _final, ...r }) => r),
    dispatches,
    child,
    bytesRead: res.bytesRead,
    truncated: res.truncated,
  };
}

export const claudeTranscripts: TranscriptParser = { harness: 'claude', parseFile: parseClaudeTranscript };
