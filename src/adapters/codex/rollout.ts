/**
 * Codex rollouts read from the TAIL at SubagentStop (the full forward parse for scan/late flush is transcript.ts).
 * Seen on 0.169.0 (reference/codex.md §6):
 *  - `turn_context` (written when a turn starts) carries the model the thread requested for that turn;
 *  - one `token_usage_record` per API response carries `usage` and the running `turn_token_usage`;
 *  - `event_msg` `task_complete` is written after SubagentStop.
 * Codex records the REQUESTED model only: a provider substituting another model is invisible here (seen).
 */
import type { Usage } from '../../contracts/usage.js';
import { readTailLines } from '../../observer/tail.js';
import { sumUsage } from '../../observer/transcripts.js';
import { codexUsage } from './transcript.js';
import { isRecord } from '../../contracts/record.js';

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

type Obj = Record<string, unknown>;
type Line = { timestamp?: unknown; type?: unknown; payload?: Obj };
/** Lines read here are < 1 KB; instructions and tool catalogs (20+ KB) are skipped unparsed. */
const MAX_PARSED_LINE = 64 * 1024;

function parse(line: string): Line | null {
  if (line.length > MAX_PARSED_LINE) return null;
  try {
    const v = JSON.parse(line) as unknown;
    return isRecord(v) ? (v as Line) : null;
  } catch {
    return null; // a half-written last line
  }
}

const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * Usage and model of one turn of a child thread (the SubagentStop payload's `turn_id`), or of the newest turn when
 * turnId is null. Stops at the turn's `turn_context`: everything the turn produced is after it.
 */
export function readChildTurn(path: string, turnId: string | null, maxBytes: number): ChildTurn {
  const out: ChildTurn = { model: null, turnId, usage: null, responseIds: [], complete: false, startedAt: null };
  let running: Usage | null = null;
  const perResponse: { usage: Usage }[] = [];
  readTailLines(path, {
    maxBytes,
    stopWhen: (text) => {
      const line = parse(text);
      const p = line?.payload;
      if (!line || !p) return false;
      const lineTurn = s(p.turn_id);
      if (line.type === 'token_usage_record') {
        out.turnId ??= lineTurn;
        if (lineTurn !== out.turnId || !isRecord(p.usage)) return false;
        const rid = s(p.response_id) ?? `#${perResponse.length}`;
        if (out.responseIds.includes(rid)) return false;
        out.responseIds.push(rid);
        perResponse.push({ usage: codexUsage(p.usage) });
        // The newest record's running turn total wins over summing, when present.
        if (running === null && isRecord(p.turn_token_usage)) running = codexUsage(p.turn_token_usage);
        return false;
      }
      if (line.type === 'event_msg' && p.type === 'task_complete') {
        out.turnId ??= lineTurn;
        if (lineTurn === null || lineTurn === out.turnId) out.complete = true;
        return false;
      }
      if (line.type === 'turn_context') {
        out.turnId ??= lineTurn;
        if (lineTurn !== out.turnId) return false;
        out.model = s(p.model) ?? s(isRecord(p.collaboration_mode) && isRecord(p.collaboration_mode.settings) ? p.collaboration_mode.settings.model : null);
        const t = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
        out.startedAt = Number.isFinite(t) ? t : null;
        return true;
      }
      return false;
    },
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
  readTailLines(parentRolloutPath, {
    maxBytes,
    stopWhen: (text) => {
      if (!text.includes(childThreadId)) return false;
      const p = parse(text)?.payload;
      const item = p?.item;
      if (p?.type === 'item_completed' && isRecord(item) && item.type === 'SubAgentActivity' && item.kind === 'started' && item.agent_thread_id === childThreadId) {
        found = s(item.id);
        return true;
      }
      return false;
    },
  });
  return found;
}
