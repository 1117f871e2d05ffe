/**
 * Cursor payload -> observation (documentation only: payload shapes from Cursor's docs and third-party captures of
 * Cursor 3.19.13, reference cursor.md §3). Pure: the caller supplies the clock and the remembered parent model.
 * Fields Cursor does not send stay null; a model is never invented.
 */
import type { CompletionObservation, DispatchObservation } from '../../contracts/observation.js';
import { CURSOR_CAPABILITY, INHERIT_VALUES } from './capability.js';
import { withoutBom } from '../../io/text.js';

type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Cursor puts a UTF-8 BOM before some payloads; the runner strips it, and this does for anyone else reading raw text. */
export function parseCursorJson(text: string): unknown {
  return JSON.parse(withoutBom(text));
}

/**
 * `workspace_roots` entries may be paths or `file://` URIs (percent-encoded; `file:///c%3A/…` on Windows): turn
 * each into a plain path. Anything else (another scheme) is dropped rather than guessed at.
 */
export function normaliseWorkspaceRoot(root: string): string | null {
  if (!root.startsWith('file:')) return root.includes('://') ? null : root;
  try {
    const url = new URL(root);
    if (url.host && url.host !== 'localhost') return null;
    let p = decodeURIComponent(url.pathname);
    if (/^\/[A-Za-z]:/.test(p)) p = p.slice(1);
    return p;
  } catch {
    return null;
  }
}

export function workspaceRoots(payload: Obj): string[] {
  const roots = Array.isArray(payload.workspace_roots) ? payload.workspace_roots : [];
  return roots.flatMap((r) => (typeof r === 'string' ? [normaliseWorkspaceRoot(r)].filter((x): x is string => x !== null) : []));
}

export function cwdOf(payload: Obj): string | null {
  return str(payload.cwd) ?? workspaceRoots(payload)[0] ?? null;
}

/** The requested child model: null when the dispatch names none (`inherit`, empty, absent). */
export function requestedModelOf(value: unknown): string | null {
  return typeof value === 'string' && !INHERIT_VALUES.has(value.trim()) ? value.trim() : null;
}

export type ParentModel = { model: string | null; source: string | null };

const base = (payload: Obj, at: number) => ({
  kind: 'dispatch' as const,
  harness: 'cursor' as const,
  capability: CURSOR_CAPABILITY,
  requestedTier: null,
  agentModel: null,
  escalationFrom: null,
  cwd: cwdOf(payload),
  at,
});

/** preToolUse for the `Task` tool (the parent's dispatch); null for any other tool. */
export function observeTask(payload: Obj, parent: ParentModel, at: number): DispatchObservation | null {
  if (payload.tool_name !== 'Task' || !isObj(payload.tool_input)) return null;
  const input = payload.tool_input;
  return {
    ...base(payload, at),
    sessionId: str(payload.conversation_id) ?? str(payload.session_id),
    callId: str(payload.tool_use_id),
    parentModel: parent.model,
    parentModelSource: parent.source,
    requestedModel: requestedModelOf(input.model),
    requestedAgent: str(input.subagent_type),
    subagentType: str(input.subagent_type),
    toolInput: input,
  };
}

/** subagentStart: `subagent_model` may be `inherit`; `tool_call_id` = `subagent_id` = the parent's Task tool_use_id. */
export function observeSubagentStart(payload: Obj, parent: ParentModel, at: number): DispatchObservation {
  const toolInput: Obj = {};
  for (const k of ['subagent_type', 'subagent_model', 'is_parallel_worker']) if (k in payload) toolInput[k] = payload[k];
  return {
    ...base(payload, at),
    sessionId: str(payload.parent_conversation_id),
    callId: str(payload.tool_call_id) ?? str(payload.subagent_id),
    parentModel: parent.model,
    parentModelSource: parent.source,
    requestedModel: requestedModelOf(payload.subagent_model),
    requestedAgent: str(payload.subagent_type),
    subagentType: str(payload.subagent_type),
    toolInput,
  };
}

const STATUS: Record<string, CompletionObservation['status']> = { completed: 'ok', error: 'error', aborted: 'cancelled', cancelled: 'cancelled' };

/**
 * subagentStop: a status, no usage, no served model (cursor.md §3, §5). Reports show such rows as "usage not reported
 * by Cursor", never $0. A failed dispatch arrives as an orphan stop (type `unknown`, status `error`, no start).
 */
export function observeSubagentStop(payload: Obj, at: number): CompletionObservation {
  const duration = typeof payload.duration_ms === 'number' && payload.duration_ms >= 0 ? payload.duration_ms : null;
  const callId = str(payload.subagent_id) ?? str(payload.tool_call_id);
  return {
    kind: 'completion',
    harness: 'cursor',
    sessionId: str(payload.parent_conversation_id),
    callId,
    agentId: str(payload.child_conversation_id) ?? (payload.conversation_id !== payload.parent_conversation_id ? str(payload.conversation_id) : null),
    subagentType: str(payload.subagent_type),
    servedModel: null,
    usage: null,
    status: STATUS[String(payload.status)] ?? 'unknown',
    outcome: { result: null, verified: null, escalationFrom: null },
    startedAt: duration === null ? null : at - duration,
    endedAt: at,
    usageSource: 'none',
    dedupeKey: callId ? `cursor:${callId}` : null,
  };
}
