/**
 * Codex rollout files ($CODEX_HOME/sessions/…/rollout-*.jsonl, one per thread) read from the tail only
 * (reference/codex.md §6, seen on 0.169.0):
 *  - `turn_context` (written when a turn starts) carries the model the thread requested for that turn;
 *  - one `token_usage_record` per API response carries `usage` and the running `turn_token_usage`;
 *  - `event_msg` `token_count` carries the thread total; `event_msg` `task_complete` is written after SubagentStop.
 * Codex records the REQUESTED model only: a provider substituting another model is invisible here (seen).
 */
import type { Usage } from '../../contracts/usage.js';
import { scanLinesBackwards } from '../../observer/tail-lines.js';
import { CodexTokenUsageSchema, normaliseCodexUsage, type CodexTokenUsage } from './usage.js';

export type ChildTurn = {
  /** turn_context.model of the turn, null when the cap cut it off. */
  model: string | null;
  turnId: string | null;
  usage: Usage | null;
  /** Distinct API responses summed into usage. */
  responseIds: string[];
  /** task_complete seen for the turn (absent at SubagentStop on 0.169.0). */
  complete: boolean;
  /** turn_context timestamp (epoch ms). */
  startedAt: number | null;
};

type Line = { timestamp?: unknown; type?: unknown; payload?: Record<string, unknown> };

function parse(line: string): Line | null {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Line) : null;
  } catch {
    return null;
  }
}

const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * Usage and model of one turn of a child thread (the SubagentStop payload's `turn_id`), or of the newest turn when
 * turnId is null. Stops at the turn's `turn_context`: everything the turn produced is after it.
 */
export function readChildTurn(path: string, turnId: string | null, maxBytes: number): ChildTurn {
  const out: ChildTurn = { model: null, turnId, usage: null, responseIds: [], complete: false, startedAt: null };
  let turnUsage: CodexTokenUsage | null = null;
  const summed: CodexTokenUsage[] = [];
  scanLinesBackwards(path, maxBytes, (text) => {
    // Big lines (instructions, tool lists) never hold what is read here: skip them unparsed.
    if (text.length > 64 * 1024) return false;
    const line = parse(text);
    const p = line?.payload;
    if (!line || !p) return false;
    const lineTurn = s(p.turn_id);
    if (line.type === 'token_usage_record') {
      if (out.turnId === null && lineTurn) out.turnId = lineTurn;
      if (lineTurn !== out.turnId) return false;
      const rid = s(p.response_id) ?? `#${summed.length}`;
      if (out.responseIds.includes(rid)) return false;
      out.responseIds.push(rid);
      const u = CodexTokenUsageSchema.safeParse(p.usage);
      if (u.success) summed.push(u.data);
      // The newest record's running turn total wins over summing, when present.
      if (turnUsage === null) {
        const t = CodexTokenUsageSchema.safeParse(p.turn_token_usage);
        if (t.success) turnUsage = t.data;
      }
      return false;
    }
    if (line.type === 'event_msg' && p.type === 'task_complete') {
      if (out.turnId === null && lineTurn) out.turnId = lineTurn;
      if (lineTurn === null || lineTurn === out.turnId) out.complete = true;
      return false;
    }
    if (line.type === 'turn_context') {
      if (out.turnId === null && lineTurn) out.turnId = lineTurn;
      if (lineTurn !== out.turnId) return false;
      out.model = s(p.model) ?? s((p.collaboration_mode as { settings?: { model?: unknown } } | undefined)?.settings?.model);
      const t = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
      out.startedAt = Number.isFinite(t) ? t : null;
      return true;
    }
    return false;
  });
  const requests = out.responseIds.length;
  if (turnUsage) out.usage = normaliseCodexUsage(turnUsage, requests);
  else if (summed.length) {
    const sum = summed.reduce<CodexTokenUsage>(
      (a, u) => ({
        input_tokens: a.input_tokens + u.input_tokens,
        cached_input_tokens: (a.cached_input_tokens ?? 0) + (u.cached_input_tokens ?? 0),
        cache_write_input_tokens: (a.cache_write_input_tokens ?? 0) + (u.cache_write_input_tokens ?? 0),
        output_tokens: a.output_tokens + u.output_tokens,
        reasoning_output_tokens: (a.reasoning_output_tokens ?? 0) + (u.reasoning_output_tokens ?? 0),
      }),
      { input_tokens: 0, output_tokens: 0 },
    );
    out.usage = normaliseCodexUsage(sum, requests);
  }
  return out;
}

/**
 * The parent's spawn call id for a child thread: the parent rollout's `item_completed` SubAgentActivity
 * `{kind:"started", id:<call_id>, agent_thread_id:<child>}` (seen on 0.169.0). An exact join; null when not found
 * within the cap (never guessed).
 */
export function findSpawnCallId(parentRolloutPath: string, childThreadId: string, maxBytes: number): string | null {
  let found: string | null = null;
  scanLinesBackwards(parentRolloutPath, maxBytes, (text) => {
    if (text.length > 64 * 1024 || !text.includes(childThreadId)) return false;
    const p = parse(text)?.payload;
    const item = p?.item as Record<string, unknown> | undefined;
    if (p?.type === 'item_completed' && item?.type === 'SubAgentActivity' && item.kind === 'started' && item.agent_thread_id === childThreadId) {
      found = s(item.id);
      return true;
    }
    return false;
  });
  return found;
}
