/**
 * Cursor payload -> observation (documentation only: payload shapes from Cursor's docs and third-party captures of
 * Cursor 3.19.13, reference cursor.md §3). Pure: the caller supplies the clock and the remembered parent model.
 * Fields Cursor does not send stay null; a model is never invented.
 */
import { joinPath } from '../../io/paths.js';
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import type { CompletionObservation, DispatchObservation } from '../../contracts/observation.js';
import type { Env } from '../../io/paths.js';
import { CURSOR_CAPABILITY, INHERIT_VALUES } from './capability.js';
import { withoutBom } from '../../io/text.js';
import { frontmatterStrings } from '../../io/frontmatter.js';
import { isRecord } from '../../contracts/record.js';

type Obj = Record<string, unknown>;

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
  return roots.flatMap((r) =>
    typeof r === 'string' ? [normaliseWorkspaceRoot(r)].filter((x): x is string => x !== null) : [],
  );
}

export function cwdOf(payload: Obj): string | null {
  return str(payload.cwd) ?? workspaceRoots(payload)[0] ?? null;
}

/** The requested child model: null when the dispatch names none (`inherit`, empty, absent). */
export function requestedModelOf(value: unknown): string | null {
  return typeof value === 'string' && !INHERIT_VALUES.has(value.trim()) ? value.trim() : null;
}

export type ParentModel = { model: string | null; source: string | null };

// ---------------------------------------------------------------------------------------------------------------
// Agent definitions. DOCUMENTATION ONLY (cursor.md §5, §6; no Cursor binary was run): a subagent type may be a custom
// agent defined in `.cursor/agents/*.md` (project) or `~/.cursor/agents/*.md` (user), frontmatter `name, description,
// model` with model `inherit`, `fast` or a model id. The docs give no precedence rules; this reads them the way Claude
// Code's (which Cursor's format follows) are read: the call's `model` first, then the agent's `model:` (`inherit` = the
// parent), the project's agent over the user's, matched by frontmatter `name` (the file name when it has none). `fast`
// is Cursor's own, unpriced model: decided as an unknown price. Bounded: 64 files of 16 KiB heads per folder, read only
// when a dispatch names a subagent type and no model.

/** An agent definition's model (null = `inherit`) and the file it came from. */
export type CursorAgentDef = { name: string; model: string | null; from: string };

const AGENT_HEAD_BYTES = 16 * 1024;
const MAX_AGENT_FILES = 64;

function readHead(path: string): string | null {
  let fd: number;
  try {
    // Non-blocking open: a FIFO named like an agent file must not stop the hook; only a regular file is read.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buf = Buffer.alloc(AGENT_HEAD_BYTES);
    return buf.subarray(0, readSync(fd, buf, 0, AGENT_HEAD_BYTES, 0)).toString();
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** `name` and `model` of a `---` frontmatter block (one-line values, io/frontmatter.ts); null without one. */
export function agentFrontmatter(text: string): { name: string | null; model: string | null } | null {
  const f = frontmatterStrings(text);
  return f && { name: f.get('name') ?? null, model: f.get('model') ?? null };
}

function defIn(dir: string, name: string): CursorAgentDef | null {
  const read = (file: string): CursorAgentDef | null => {
    const path = joinPath(dir, file);
    const text = readHead(path);
    const fm = text === null ? null : agentFrontmatter(text);
    if (!fm || (fm.name ?? file.slice(0, -3)) !== name) return null;
    return { name, model: fm.model && !INHERIT_VALUES.has(fm.model) ? fm.model : null, from: path };
  };
  // The usual layout first (<name>.md), then the folder, since the frontmatter name is what counts.
  const direct = read(`${name}.md`);
  if (direct) return direct;
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.md') && f !== `${name}.md`)
      .sort()
      .slice(0, MAX_AGENT_FILES);
  } catch {
    return null;
  }
  for (const f of files) {
    const d = read(f);
    if (d) return d;
  }
  return null;
}

/** The agent definition a subagent type names: the project's (under `cwd`) over the user's; null when none. */
export function cursorAgentDef(name: string, cwd: string | null, env: Env): CursorAgentDef | null {
  if (!/^[\w.-]+$/.test(name)) return null;
  const dirs = [
    ...(cwd ? [joinPath(cwd, '.cursor', 'agents')] : []),
    joinPath(env.HOME || homedir(), '.cursor', 'agents'),
  ];
  for (const dir of dirs) {
    const d = defIn(dir, name);
    if (d) return d;
  }
  return null;
}

/** What the child runs on when the dispatch names no model: its agent definition's model (docs only, see above). */
function agentModelOf(
  type: string | null,
  requested: string | null,
  cwd: string | null,
  env: Env,
): Pick<DispatchObservation, 'agentModel' | 'agentModelFrom'> {
  if (requested || !type) return { agentModel: null, agentModelFrom: null };
  const def = cursorAgentDef(type, cwd, env);
  return def?.model ? { agentModel: def.model, agentModelFrom: def.from } : { agentModel: null, agentModelFrom: null };
}

const base = (payload: Obj, at: number) => ({
  kind: 'dispatch' as const,
  harness: 'cursor' as const,
  capability: CURSOR_CAPABILITY,
  requestedTier: null,
  escalationFrom: null,
  cwd: cwdOf(payload),
  at,
});

/**
 * preToolUse for the `Task` tool (the parent's dispatch); null for any other tool. `env` locates the user's agent
 * definitions (HOME).
 */
export function observeTask(
  payload: Obj,
  parent: ParentModel,
  at: number,
  env: Env = process.env,
): DispatchObservation | null {
  if (payload.tool_name !== 'Task' || !isRecord(payload.tool_input)) return null;
  const input = payload.tool_input;
  const requestedModel = requestedModelOf(input.model);
  const type = str(input.subagent_type);
  return {
    ...base(payload, at),
    sessionId: str(payload.conversation_id) ?? str(payload.session_id),
    callId: str(payload.tool_use_id),
    parentModel: parent.model,
    parentModelSource: parent.source,
    requestedModel,
    requestedAgent: type,
    ...agentModelOf(type, requestedModel, cwdOf(payload), env),
    subagentType: type,
    toolInput: input,
  };
}

/** subagentStart: `subagent_model` may be `inherit`; `tool_call_id` = `subagent_id` = the parent's Task tool_use_id. */
export function observeSubagentStart(
  payload: Obj,
  parent: ParentModel,
  at: number,
  env: Env = process.env,
): DispatchObservation {
  const toolInput: Obj = {};
  for (const k of ['subagent_type', 'subagent_model', 'is_parallel_worker'])
    if (k in payload) toolInput[k] = payload[k];
  const requestedModel = requestedModelOf(payload.subagent_model);
  const type = str(payload.subagent_type);
  return {
    ...base(payload, at),
    sessionId: str(payload.parent_conversation_id),
    callId: str(payload.tool_call_id) ?? str(payload.subagent_id),
    parentModel: parent.model,
    parentModelSource: parent.source,
    requestedModel,
    requestedAgent: type,
    ...agentModelOf(type, requestedModel, cwdOf(payload), env),
    subagentType: type,
    toolInput,
  };
}

const STATUS: Record<string, CompletionObservation['status']> = {
  completed: 'ok',
  error: 'error',
  aborted: 'cancelled',
  cancelled: 'cancelled',
};

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
    agentId:
      str(payload.child_conversation_id) ??
      (payload.conversation_id !== payload.parent_conversation_id ? str(payload.conversation_id) : null),
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
