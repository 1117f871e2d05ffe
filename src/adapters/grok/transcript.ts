/**
 * Grok Build 1.0.41's session folders, for `tiergate scan` and the drain's late-flush re-reads. The transcript a hook
 * names (`updates.jsonl`) holds no token counts; the folder's `usage.json` does, per model, and `summary.json` says
 * whether the session is a child (`session_kind: "subagent"`). So a folder is read through its updates.jsonl: the other
 * *.jsonl files of a folder (chat_history, events, rewind_points) are no transcript of their own and parse empty.
 * Usage is Grok's per-model sum, one request record per model: a folder scanned before its session ended keeps the
 * counts it had then (the record's key does not change), which the drain's rows for the same child do not.
 */
import { basename, dirname, join } from 'node:path';
import { isRecord } from '../../contracts/record.js';
import { readTextCapped } from '../../io/read-capped.js';
import { extractOutcome } from '../../observer/outcome.js';
import {
  asString,
  asTime,
  type ChildSummary,
  type FileParse,
  type TranscriptParser,
  type TranscriptRequest,
} from '../../observer/transcripts.js';
import { readSessionUsage, SESSION_FILE_MAX_BYTES } from './session-files.js';

export const TRANSCRIPT_NAME = 'updates.jsonl';

function summary(dir: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(readTextCapped(join(dir, 'summary.json'), SESSION_FILE_MAX_BYTES));
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

export function parseGrokSession(path: string): FileParse {
  const empty: FileParse = {
    harness: 'grok',
    sessionId: null,
    project: null,
    requests: [],
    dispatches: [],
    child: null,
    bytesRead: 0,
    truncated: false,
  };
  if (basename(path) !== TRANSCRIPT_NAME) return empty;
  const dir = dirname(path);
  const sum = summary(dir);
  const usage = readSessionUsage(dir);
  const info = isRecord(sum?.info) ? sum.info : {};
  const sessionId = asString(info.id) ?? usage?.sessionId ?? basename(dir);
  const isChild = sum?.session_kind === 'subagent';
  const at = usage?.updatedAt ?? asTime(sum?.updated_at);
  const requests: TranscriptRequest[] = Object.entries(usage?.models ?? {}).map(([model, u]) => ({
    key: `grok:${sessionId}:${model}`,
    model,
    usage: u,
    at,
    sessionId,
    agentId: isChild ? sessionId : null,
    sidechain: isChild,
  }));
  let child: ChildSummary | null = null;
  if (isChild) {
    child = {
      agentId: sessionId,
      callId: null,
      subagentType: asString(sum?.agent_name),
      requestedModel: null,
      servedModel: usage?.servedModel ?? null,
      usage: usage?.usage ?? null,
      outcome: extractOutcome(asString(sum?.last_turn_summary)),
      // usage.json is written when the child's turn ends: once it counts a turn, the child is done.
      complete: (usage?.turns ?? 0) > 0,
      incomplete: false,
      startedAt: asTime(sum?.created_at),
      endedAt: at,
    };
  }
  return {
    ...empty,
    sessionId,
    project: asString(info.cwd),
    requests,
    child,
  };
}

export const grokTranscripts: TranscriptParser = {
  harness: 'grok',
  oneChildPerFile: true,
  parseFile: (path) => parseGrokSession(path),
};
