/**
 * Grok Build 1.0.41's per-session files (seen): `$GROK_HOME/sessions/<url-encoded cwd>/<session id>/` holds
 * `updates.jsonl` (the transcript a hook payload names as transcriptPath), `summary.json` (`current_model_id`,
 * `session_kind: headless|subagent`) and `usage.json`, written at each turn's end: per-model tokens
 * (`session.modelUsage.<model>`) and `primaryModelId`, the model that served it. A child's folder is a sibling of its
 * parent's; the parent's `subagents/<child id>/meta.json` links the two. Bounded reads; ids and numbers only.
 */
import { baseName, dirName, joinPath } from '../../io/paths.js';
import { isRecord } from '../../contracts/record.js';
import type { Usage } from '../../contracts/usage.js';
import { readTextCapped } from '../../io/read-capped.js';
import { asCount, asString, asTime, usageWithCacheInInput } from '../../observer/transcripts.js';

/** summary.json and usage.json are a few KB each (a usage.json grows by ~1 KB a turn). */
export const SESSION_FILE_MAX_BYTES = 4 * 1024 * 1024;

/** A session's folder from the transcript path a hook payload gives (its updates.jsonl). */
export const sessionDirOf = (transcriptPath: string): string => dirName(transcriptPath);

function readJson(path: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(readTextCapped(path, SESSION_FILE_MAX_BYTES));
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/** The model a session runs on now (summary.json `current_model_id`), or null. */
export function sessionModel(dir: string): string | null {
  return asString(readJson(joinPath(dir, 'summary.json'))?.current_model_id);
}

export type SessionUsage = {
  sessionId: string | null;
  /** `primaryModelId`: the model that served the session. */
  servedModel: string | null;
  /** Every model's tokens summed (input without the cached part, output with reasoning), requests = model calls. */
  usage: Usage | null;
  /** Per model, as Grok counted them. */
  models: Record<string, Usage>;
  turns: number;
  updatedAt: number | null;
};

/**
 * usage.json -> tokens. Grok's inputTokens is the wire's prompt_tokens (cached reads included) and outputTokens its
 * completion_tokens (reasoning included): 1.0.41 wrote inputTokens 1004 with cachedReadTokens 300 for a request the
 * fake API answered with prompt_tokens 1004, cached_tokens 300 (seen).
 */
export function parseUsageJson(doc: Record<string, unknown>): SessionUsage {
  const session = isRecord(doc.session) ? doc.session : {};
  const perModel = isRecord(session.modelUsage) ? session.modelUsage : {};
  const models: Record<string, Usage> = {};
  const total: Usage = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite5m: 0,
    cacheWrite1h: 0,
    reasoning: 0,
    requests: 0,
  };
  for (const [model, raw] of Object.entries(perModel)) {
    if (!isRecord(raw)) continue;
    const calls = asCount(raw.modelCalls);
    if (calls === 0) continue;
    const u = {
      ...usageWithCacheInInput({
        input: raw.inputTokens,
        output: raw.outputTokens,
        cacheRead: raw.cachedReadTokens,
        cacheWrite: raw.cacheCreationTokens,
        reasoning: raw.reasoningTokens,
      }),
      requests: calls,
    };
    models[model] = u;
    total.input += u.input;
    total.output += u.output;
    total.cacheRead += u.cacheRead;
    total.cacheWrite5m += u.cacheWrite5m;
    total.reasoning += u.reasoning;
    total.requests += u.requests;
  }
  return {
    sessionId: asString(doc.sessionId),
    servedModel: asString(session.primaryModelId),
    usage: total.requests > 0 ? total : null,
    models,
    turns: Array.isArray(doc.turns) ? doc.turns.length : 0,
    updatedAt: asTime(doc.updatedAt),
  };
}

/** A session folder's usage.json, or null when it is not there (yet) or unreadable. */
export function readSessionUsage(dir: string): SessionUsage | null {
  const doc = readJson(joinPath(dir, 'usage.json'));
  return doc ? parseUsageJson(doc) : null;
}

/** A child as its parent's `subagents/<id>/meta.json` records it (status, effective model, times). */
export type ChildMeta = {
  status: string | null;
  effectiveModel: string | null;
  startedAt: number | null;
  completedAt: number | null;
  subagentType: string | null;
  childCwd: string | null;
};

export function readChildMeta(parentDir: string, childId: string): ChildMeta | null {
  const doc = readJson(joinPath(parentDir, 'subagents', baseName(childId), 'meta.json'));
  if (!doc) return null;
  return {
    status: asString(doc.status),
    effectiveModel: asString(doc.effective_model_id),
    startedAt: asTime(doc.started_at),
    completedAt: asTime(doc.completed_at),
    subagentType: asString(doc.subagent_type),
    childCwd: asString(doc.child_cwd),
  };
}
