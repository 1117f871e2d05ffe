/**
 * GitHub Copilot CLI's session file, `$COPILOT_HOME/session-state/<session>/events.jsonl` (1.0.102, reference §6, seen):
 * one JSON line per session event, the parent's and every child's in the same file, child lines tagged with `agentId`.
 * Shared by the dispatch hook (parent-model.ts, a bounded tail read) and the transcript parser (transcript.ts, forward).
 * Pure helpers; nothing here reads a file.
 */
import { withoutTrailingSlashes } from '../../io/text.js';
import type { Usage } from '../../contracts/usage.js';
import type { Env } from '../../contracts/env.js';
import { isRecord } from '../../contracts/record.js';
import { usageWithCacheInInput } from '../../observer/transcripts.js';
import { parseJsonLine } from '../../observer/json-lines.js';

export type EventLine = {
  type: string;
  data: Record<string, unknown>;
  agentId: string | null;
  timestamp: string | null;
};

/** One line as an event, or null (torn mid-write, not JSON, not an event). */
export const parseEventLine = (line: string): EventLine | null => eventOf(parseJsonLine(line));

/** A parsed line as an event, or null (not an event). */
export function eventOf(v: unknown): EventLine | null {
  if (!isRecord(v) || typeof v.type !== 'string') return null;
  return {
    type: v.type,
    data: isRecord(v.data) ? v.data : {},
    agentId: typeof v.agentId === 'string' && v.agentId !== '' ? v.agentId : null,
    timestamp: typeof v.timestamp === 'string' ? v.timestamp : null,
  };
}

/** `$COPILOT_HOME` (what Copilot CLI gives its hooks, seen), else `~/.copilot`; null when neither can be told. */
export function copilotHome(env: Env): string | null {
  if (env.COPILOT_HOME) return withoutTrailingSlashes(env.COPILOT_HOME) || '/';
  if (env.HOME) return `${withoutTrailingSlashes(env.HOME)}/.copilot`;
  return null;
}

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * A session id usable as one path component: what Copilot writes (UUIDs), never `..` or a slash from a payload.
 * `/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/` as a loop (a RegExp is compiled on its first run in each hook process).
 */
export function isSafeId(id: string): boolean {
  if (id.length === 0 || id.length > 128 || !isAlnum(id.charCodeAt(0))) return false;
  for (let i = 1; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!isAlnum(c) && c !== 46 && c !== 95 && c !== 45) return false;
  }
  return true;
}

export function eventsPath(home: string, sessionId: string): string | null {
  if (!isSafeId(sessionId) || sessionId.includes('..')) return null;
  return `${home}/session-state/${sessionId}/events.jsonl`;
}

/**
 * A `session.usage_record`'s `usage` as tiergate's Usage. Under BYOK with an OpenAI-compatible provider (the only
 * kind exercised) `inputTokens` is the wire's `prompt_tokens`, which includes the cached reads, and `outputTokens` its
 * `completion_tokens`, which include reasoning (seen: 1002 in, 502 cached, on the wire as prompt_tokens 1002).
 */
export function usageFromRecord(u: Record<string, unknown>): Usage {
  return usageWithCacheInInput({
    input: u.inputTokens,
    output: u.outputTokens,
    cacheRead: u.cacheReadTokens,
    cacheWrite: u.cacheWriteTokens,
    reasoning: u.reasoningTokens,
  });
}

/**
 * `usage.cost`: "Model multiplier cost for billing purposes" (SDK types, 1.0.102); 0 under BYOK (seen), and a BYOK
 * request is never read as billed by multiplier whatever it says. 0 on a GitHub-hosted request (an included model, or
 * a request GitHub does not bill) is no multiplier either: nothing is compared by it.
 */
export function multiplierOf(u: Record<string, unknown>): number | null {
  if (u.isByok === true) return null;
  return typeof u.cost === 'number' && Number.isFinite(u.cost) && u.cost > 0 ? u.cost : null;
}

/** Key order never matters when two argument objects are compared (the session file and the hook payload). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isRecord(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}
