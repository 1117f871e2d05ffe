/**
 * Grok Build 1.0.41's subagent completions -> CompletionObservation, joined to the dispatch by the spawn's toolUseId
 * and to each other by the child's id (its session id; dedupe key `grok-agent:<id>`):
 *  - PostToolUse[spawn_subagent] (parent) names the call and the child (`toolResult.subagent_id`, or the
 *    `subagent_id: <id>` line of a background spawn's text). A blocking spawn has ended by then, its usage.json written.
 *  - SubagentStop (child) carries the child's last message (outcome tokens only) and its own transcript path, but runs
 *    before the child's usage.json is written (seen: ~25 ms before): pending unless it is there.
 *  - SessionEnd of the child (`subagentType` set) runs after it: the usage of a background child.
 * A row still pending is settled by the drain's late-flush re-read of the child's folder (transcript.ts).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CompletionObservation } from '../../contracts/observation.js';
import { isRecord } from '../../contracts/record.js';
import { extractOutcome } from '../../observer/outcome.js';
import { DISPATCH_TOOL } from './dispatch-payload.js';
import type { PostToolUsePayload, SubagentStopPayload } from './payloads.js';
import { readChildMeta, readSessionUsage, sessionDirOf, type SessionUsage } from './session-files.js';
import { TRANSCRIPT_NAME } from './transcript.js';

export type CompletionRead = { observation: CompletionObservation; transcriptPath: string | null };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The child's id from a spawn's result: `SubagentCompleted.subagent_id`, or the background text's `subagent_id:`. */
export function spawnedChildId(result: unknown): string | null {
  if (!isRecord(result)) return null;
  const id = str(result.subagent_id);
  if (id) return id;
  const text = str(result.text);
  const m = text ? /^subagent_id:\s*([A-Za-z0-9._-]+)\s*$/m.exec(text) : null;
  return m ? m[1]! : null;
}

/** A child whose usage.json counts a finished turn is complete; otherwise the drain looks again later. */
const settled = (u: SessionUsage | null) => (u?.usage && u.turns > 0 ? u : null);

function observation(
  base: Pick<CompletionObservation, 'sessionId' | 'callId' | 'agentId' | 'subagentType' | 'outcome' | 'startedAt'>,
  usage: SessionUsage | null,
  fallbackModel: string | null,
  now: number,
  failed = false,
): CompletionObservation {
  const done = settled(usage);
  return {
    kind: 'completion',
    harness: 'grok',
    ...base,
    servedModel: done?.servedModel ?? fallbackModel,
    usage: done?.usage ?? null,
    status: failed ? 'error' : done ? 'ok' : 'pending',
    endedAt: now,
    usageSource: done ? 'transcript-tail' : 'none',
    dedupeKey: base.agentId ? `grok-agent:${base.agentId}` : null,
  };
}

/** PostToolUse in the parent; null for another tool or a spawn that started no child (denied, invalid). */
export function completionFromPostToolUse(p: PostToolUsePayload, now: number): CompletionRead | null {
  if (p.toolName !== DISPATCH_TOOL) return null;
  const childId = spawnedChildId(p.toolResult);
  if (!childId) return null;
  const parentDir = p.transcriptPath ? sessionDirOf(p.transcriptPath) : null;
  const meta = parentDir ? readChildMeta(parentDir, childId) : null;
  // The child's folder sits beside the parent's (seen), or under its own cwd's folder when the spawn set `cwd`
  // (meta.child_cwd, URL-encoded as Grok names the folders).
  const places = parentDir
    ? [
        join(dirname(parentDir), childId),
        ...(meta?.childCwd ? [join(dirname(dirname(parentDir)), encodeURIComponent(meta.childCwd), childId)] : []),
      ]
    : [];
  const childDir = places.find((d) => existsSync(d)) ?? places[0] ?? null;
  const result = isRecord(p.toolResult) ? p.toolResult : {};
  const blocking = result.type === 'SubagentCompleted';
  const type = str(result.subagent_type) ?? str(p.toolInput?.subagent_type) ?? meta?.subagentType ?? null;
  return {
    observation: observation(
      {
        sessionId: p.sessionId,
        callId: p.toolUseId ?? null,
        agentId: childId,
        subagentType: type,
        outcome: extractOutcome(blocking ? str(result.output) : null),
        startedAt: meta?.startedAt ?? null,
      },
      blocking && childDir ? readSessionUsage(childDir) : null,
      meta?.effectiveModel ?? null,
      now,
      meta?.status === 'failed',
    ),
    transcriptPath: childDir ? join(childDir, TRANSCRIPT_NAME) : null,
  };
}

/** SubagentStop, or the child's SessionEnd: its id is the event's sessionId, its folder its transcript's. */
export function completionFromChild(
  p: Pick<SubagentStopPayload, 'sessionId' | 'transcriptPath' | 'subagentId' | 'subagentType'> & {
    lastAssistantMessage?: string;
  },
  now: number,
): CompletionRead {
  const childId = p.subagentId || p.sessionId;
  const dir = p.transcriptPath ? sessionDirOf(p.transcriptPath) : null;
  return {
    observation: observation(
      {
        // The parent is not named here: its PostToolUse fills the session and the call in.
        sessionId: null,
        callId: null,
        agentId: childId,
        subagentType: p.subagentType || null,
        outcome: extractOutcome(p.lastAssistantMessage ?? null),
        startedAt: null,
      },
      dir ? readSessionUsage(dir) : null,
      null,
      now,
    ),
    transcriptPath: p.transcriptPath ?? null,
  };
}
