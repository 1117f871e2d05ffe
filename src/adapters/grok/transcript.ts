/**
 * Grok Build 1.0.41's session folders, for `tiergate scan` and the drain's late-flush re-reads. The transcript a hook
 * names (`updates.jsonl`) holds no token counts; the folder's `usage.json` does, per model, and `summary.json` says
 * whether the session is a child (`session_kind: "subagent"`). So a folder is read through its updates.jsonl: the other
 * *.jsonl files of a folder (chat_history, events, rewind_points) are no transcript of their own and parse empty.
 * Usage is Grok's per-model sum, one request record per model: a folder scanned before its session ended keeps the
 * counts it had then (the record's key does not change), which the drain's rows for the same child do not.
 * A parent's usage.json also counts the children that finished before it was written (1.0.41, seen: a blocking child's
 * tokens are in both folders; a background child that ended after the parent's turn is in its own only): those are
 * taken out of the parent's records, so a child is counted once, as a child.
 */
import { opendirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Usage } from '../../contracts/usage.js';
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
import { readChildMeta, readSessionUsage, SESSION_FILE_MAX_BYTES, type SessionUsage } from './session-files.js';

export const TRANSCRIPT_NAME = 'updates.jsonl';

function summary(dir: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(readTextCapped(join(dir, 'summary.json'), SESSION_FILE_MAX_BYTES));
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/** At most this many children of one parent are looked at (their meta.json and usage.json, a few KB each). */
export const MAX_CHILDREN = 256;

function childIds(parentDir: string): string[] {
  const ids: string[] = [];
  let d;
  try {
    d = opendirSync(join(parentDir, 'subagents'));
  } catch {
    return ids;
  }
  try {
    for (let e = d.readSync(); e && ids.length < MAX_CHILDREN; e = d.readSync()) if (e.isDirectory()) ids.push(e.name);
  } finally {
    d.closeSync();
  }
  return ids;
}

const minus = (a: Usage, b: Usage): Usage => ({
  input: Math.max(0, a.input - b.input),
  output: Math.max(0, a.output - b.output),
  cacheRead: Math.max(0, a.cacheRead - b.cacheRead),
  cacheWrite5m: Math.max(0, a.cacheWrite5m - b.cacheWrite5m),
  cacheWrite1h: Math.max(0, a.cacheWrite1h - b.cacheWrite1h),
  reasoning: Math.max(0, a.reasoning - b.reasoning),
  requests: a.requests - b.requests,
});

/** The parent's own per-model usage: its usage.json less the children that had finished when it was written. */
function ownModels(dir: string, usage: SessionUsage): Record<string, Usage> {
  const out = { ...usage.models };
  for (const id of childIds(dir)) {
    const meta = readChildMeta(dir, id);
    if (!meta?.completedAt || usage.updatedAt === null || meta.completedAt > usage.updatedAt) continue;
    const child = readSessionUsage(join(dirname(dir), id));
    for (const [model, u] of Object.entries(child?.models ?? {})) {
      const mine = out[model];
      if (!mine) continue;
      const left = minus(mine, u);
      if (left.requests > 0) out[model] = left;
      else delete out[model];
    }
  }
  return out;
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
  const models = usage ? (isChild ? usage.models : ownModels(dir, usage)) : {};
  const requests: TranscriptRequest[] = Object.entries(models).map(([model, u]) => ({
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
