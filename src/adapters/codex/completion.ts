/**
 * Codex SubagentStop payload (+ the child's rollout tail) -> CompletionObservation.
 * At SubagentStop (0.169.0, seen): `agent_transcript_path` is the child's rollout, `transcript_path` the parent's,
 * `turn_id` the child's turn, `model` the child's model; the child's usage lines are already flushed but
 * `task_complete` is not. The spawn call id comes from an exact join in the parent rollout, never from guessing.
 */
import type { CompletionObservation } from '../../contracts/observation.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import type { Env } from '../../io/paths.js';
import { extractOutcome } from '../../observer/outcome.js';
import { SubagentStopPayloadSchema, type SubagentStopPayload } from './payloads.js';
import { findSpawnCallId, readChildTurn, type ChildTurn } from './rollout.js';

export type CompletionRead = { observation: CompletionObservation; transcriptPath: string | null };

function safely<T>(what: string, env: Env, f: () => T): T | null {
  try {
    return f();
  } catch (err) {
    diagnose('warn', 'codex:subagent-stop', `${what}: ${errorText(err)}`, {}, env);
    return null;
  }
}

export function observeCompletion(raw: unknown, opts: { tailBytes: number; now: number; env: Env }): CompletionRead {
  const p: SubagentStopPayload = SubagentStopPayloadSchema.parse(raw);
  const childPath = p.agent_transcript_path ?? null;
  const turn: ChildTurn | null = childPath
    ? safely('child rollout', opts.env, () => readChildTurn(childPath, p.turn_id ?? null, opts.tailBytes))
    : null;
  const parentPath = p.transcript_path ?? null;
  const callId = parentPath
    ? safely('parent rollout', opts.env, () => findSpawnCallId(parentPath, p.agent_id, opts.tailBytes))
    : null;
  const usage = turn?.usage ?? null;
  const observation: CompletionObservation = {
    kind: 'completion',
    harness: 'codex',
    sessionId: p.session_id,
    callId,
    agentId: p.agent_id,
    subagentType: p.agent_type ?? null,
    // Codex records the model it requested, not the one the API answered with (seen): this is the best available.
    servedModel: turn?.model ?? p.model ?? null,
    usage,
    status: usage ? 'ok' : 'pending',
    outcome: extractOutcome(p.last_assistant_message),
    startedAt: turn?.startedAt ?? null,
    endedAt: opts.now,
    usageSource: usage ? 'transcript-tail' : 'none',
    // One SubagentStop per child turn (a follow-up task starts a new turn, seen on 0.169.0): the turn is the unit of
    // cost, and the ledger keys the row by it.
    dedupeKey: `codex:${p.agent_id}:${turn?.turnId ?? p.turn_id ?? 'unknown-turn'}`,
    turnId: turn?.turnId ?? p.turn_id ?? null,
  };
  return { observation, transcriptPath: childPath };
}
