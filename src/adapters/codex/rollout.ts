/**
 * Codex rollouts read from the TAIL at SubagentStop (the full forward parse for scan/late flush is transcript.ts; both
 * decode lines with records.ts). A turn's `turn_context` comes first, then one `token_usage_record` per API response;
 * `task_complete` is written after SubagentStop (0.169.0, seen). Codex records the REQUESTED model only: a provider
 * substituting another model is invisible here (seen).
 */
import type { Usage } from '../../contracts/usage.js';
import { readJsonTail } from '../../observer/json-lines.js';
import { sumUsage } from '../../observer/transcripts.js';
import { decodeRolloutRecord } from './records.js';

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

/** Lines read here are < 1 KB; instructions and tool catalogs (20+ KB) are skipped unparsed. */
const MAX_PARSED_LINE = 64 * 1024;

/**
 * Usage and model of one turn of a child thread (the SubagentStop payload's `turn_id`), or of the newest turn when
 * turnId is null. Stops at the turn's `turn_context`: everything the turn produced is after it.
 */
export function readChildTurn(path: string, turnId: string | null, maxBytes: number): ChildTurn {
  const out: ChildTurn = { model: null, turnId, usage: null, responseIds: [], complete: false, startedAt: null };
  let running: Usage | null = null;
  const perResponse: { usage: Usage }[] = [];
  readJsonTail(path, { maxBytes, keep: (text) => text.length <= MAX_PARSED_LINE }, (value) => {
    const rec = decodeRolloutRecord(value);
    if (!rec) return false;
    if (rec.kind === 'token-usage') {
      out.turnId ??= rec.turnId;
      if (rec.turnId !== out.turnId || !rec.usage) return false;
      const rid = rec.responseId ?? `#${perResponse.length}`;
      if (out.responseIds.includes(rid)) return false;
      out.responseIds.push(rid);
      perResponse.push({ usage: rec.usage });
      // The newest record's running turn total wins over summing, when present.
      if (running === null && rec.turnUsage) running = rec.turnUsage;
      return false;
    }
    if (rec.kind === 'task-complete') {
      out.turnId ??= rec.turnId;
      if (rec.turnId === null || rec.turnId === out.turnId) out.complete = true;
      return false;
    }
    if (rec.kind === 'turn-context') {
      out.turnId ??= rec.turnId;
      if (rec.turnId !== out.turnId) return false;
      out.model = rec.model;
      out.startedAt = rec.at;
      return true;
    }
    return false;
  });
  const summed = sumUsage(perResponse);
  out.usage = running ? { ...(running as Usage), requests: Math.max(1, perResponse.length) } : summed;
  return out;
}

/**
 * The parent's spawn call id for a child thread: the parent rollout's `item_completed` SubAgentActivity
 * `{kind:"started", id:<call_id>, agent_thread_id:<child>}` (seen on 0.169.0). An exact join; null when not found
 * within the cap (never guessed).
 */
export function findSpawnCallId(parentRolloutPath: string, childThreadId: string, maxBytes: number): string | null {
  let found: string | null = null;
  const keep = (text: string) => text.length <= MAX_PARSED_LINE && text.includes(childThreadId);
  readJsonTail(parentRolloutPath, { maxBytes, keep }, (value) => {
    const rec = decodeRolloutRecord(value);
    if (rec?.kind !== 'subagent-started' || rec.childThreadId !== childThreadId) return false;
    found = rec.callId;
    return true;
  });
  return found;
}
