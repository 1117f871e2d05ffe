/**
 * Gemini CLI AfterTool[invoke_agent] (+ the child's chat file, read from its tail) -> CompletionObservation.
 * At AfterTool (0.61.0, seen): the payload has no model and no usage; the child's agent id is the prefix (before `#`)
 * of `tool_response.returnDisplay.recentActivity[].id`, and its chat file already holds every model message with
 * `model` and `tokens`. The call id is the dispatch hook's (chat-file.ts dispatchCallId), from the same parent message.
 */
import type { CompletionObservation } from '../../contracts/observation.js';
import type { Env } from '../../contracts/env.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { extractOutcome } from '../../observer/outcome.js';
import { childChatPath, dispatchCallId, readChildRun, readParentTurn, type ChildRun } from './chat-file.js';
import { PARENT_TAIL_BYTES } from './dispatch-command.js';
import { DISPATCH_TOOL } from './dispatch-payload.js';
import { AfterToolPayloadSchema } from './payloads.js';
import { isRecord } from '../../contracts/record.js';

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The child's agent id: `<agent id>#<turn>-<n>` in each recentActivity entry (seen). */
export function childAgentId(display: Obj | null): string | null {
  const list = display && Array.isArray(display.recentActivity) ? display.recentActivity : [];
  for (const a of list) {
    const id = isRecord(a) ? str(a.id) : null;
    const hash = id ? id.indexOf('#') : -1;
    if (id && hash > 0) return id.slice(0, hash);
  }
  return null;
}

/** returnDisplay.state / terminateReason -> the ledger's status (`completed` + GOAL seen; the others from source). */
function statusOf(display: Obj | null): CompletionObservation['status'] {
  const state = str(display?.state);
  const reason = str(display?.terminateReason);
  if (state === 'completed' || reason === 'GOAL') return 'ok';
  if (state === 'cancelled' || reason === 'ABORTED') return 'cancelled';
  if (state === 'error' || (reason && reason !== 'GOAL')) return 'error';
  return 'unknown';
}

function safely<T>(what: string, env: Env, f: () => T): T | null {
  try {
    return f();
  } catch (err) {
    diagnose('warn', 'gemini:after-tool', `${what}: ${errorText(err)}`, {}, env);
    return null;
  }
}

export type CompletionRead = { observation: CompletionObservation; transcriptPath: string | null };

/** Null for any tool but invoke_agent. Throws on a malformed payload (the runner fails open). */
export function observeCompletion(
  raw: unknown,
  opts: { tailBytes: number; now: number; env: Env },
): CompletionRead | null {
  const p = AfterToolPayloadSchema.parse(raw);
  if (p.tool_name !== DISPATCH_TOOL) return null;
  const response = isRecord(p.tool_response) ? p.tool_response : null;
  const display = response && isRecord(response.returnDisplay) ? response.returnDisplay : null;
  const agentId = childAgentId(display);
  const parentPath = p.transcript_path ?? null;
  const parent = parentPath
    ? safely('parent chat file', opts.env, () => readParentTurn(parentPath, PARENT_TAIL_BYTES))
    : null;
  const childPath = parentPath && agentId ? childChatPath(parentPath, p.session_id, agentId) : null;
  const run: ChildRun | null = childPath
    ? safely('child chat file', opts.env, () => readChildRun(childPath, opts.tailBytes))
    : null;
  const usage = run?.usage ?? null;
  const ended = statusOf(display);
  // A child whose file was cut by the cap (or not found) waits for the drain's late-flush pass over the whole file.
  const status: CompletionObservation['status'] = usage && !run!.truncated ? ended : childPath ? 'pending' : ended;
  const callId = parent?.messageId ? dispatchCallId(parent.messageId, p.tool_input?.prompt) : null;
  const observation: CompletionObservation = {
    kind: 'completion',
    harness: 'gemini',
    sessionId: p.session_id,
    callId,
    agentId,
    subagentType: str(display?.agentName) ?? str(p.tool_input?.agent_name),
    // Gemini records the model it requested, not the modelVersion the API answered with (seen): the best available.
    servedModel: run?.model ?? null,
    usage,
    status,
    outcome: extractOutcome(str(display?.result)),
    startedAt: run?.startedAt ?? null,
    endedAt: opts.now,
    usageSource: usage ? 'transcript-tail' : 'none',
    dedupeKey: agentId ? `gemini:${agentId}` : callId ? `gemini-call:${callId}` : null,
  };
  return { observation, transcriptPath: childPath };
}
