/**
 * Cursor's command-hook handlers (documentation only: no Cursor binary was run; cursor.md). Every permission hook
 * answers with Cursor's JSON on every path, an internal error included: a public project reports that Cursor blocks
 * subagentStart on a missing or invalid answer even with failClosed off. The runner's `failOpen` covers the paths
 * the handler never reaches (oversize stdin, bad JSON, deadline).
 */
import type { Decision } from '../../contracts/decision.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import type { SpoolRecord } from '../../contracts/spool.js';
import type { CommandAdapter, Defer, HookAnswer, HookContext } from '../../contracts/hook.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import type { Env } from '../../io/paths.js';
import { ALLOW, EMPTY, cursorAnswer } from './answer.js';
import { loadMemory, saveMemory, type CursorMemory } from './memory.js';
import { observeSubagentStart, observeSubagentStop, observeTask, str, type ParentModel } from './observe.js';
import { isRecord } from '../../contracts/record.js';

export type CursorDeps = {
  /** Decides and records the dispatch (routeDispatch: loads policy and prices, appends to the spool, never throws). */
  route(obs: DispatchObservation, env: Env, defer?: Defer): Decision;
  /** Appends a completion to the spool. */
  spool(record: SpoolRecord, env: Env): void;
  now(): number;
};

const NO_PARENT: ParentModel = { model: null, source: null };

function remembered(mem: CursorMemory, conversation: string | null): ParentModel {
  const e = conversation ? mem.models[conversation] : undefined;
  return e ? { model: e.v, source: 'earlier-payload' } : NO_PARENT;
}

/**
 * The memory is context for the next hook process, never part of the answer: a write that fails (read-only or missing
 * data dir) is diagnosed and the decision already taken stands. Inside `guarded`, a throw here would turn a deny into
 * its fallback allow.
 */
function remember(event: string, env: Env, mem: CursorMemory, now: number): void {
  try {
    saveMemory(env, mem, now);
  } catch (err) {
    diagnose('error', `cursor:${event}`, `memory not saved: ${errorText(err)}`, {}, env);
  }
}

function guarded(
  event: string,
  fallback: HookAnswer,
  fn: (p: Record<string, unknown>, ctx: HookContext) => HookAnswer,
) {
  return (payload: unknown, ctx: HookContext): HookAnswer => {
    try {
      if (!isRecord(payload)) {
        diagnose('warn', `cursor:${event}`, 'payload is not a JSON object', {}, ctx.env);
        return fallback;
      }
      return fn(payload, ctx);
    } catch (err) {
      diagnose('error', `cursor:${event}`, errorText(err), {}, ctx.env);
      return fallback;
    }
  };
}

export function makeCursorAdapter(deps: CursorDeps): CommandAdapter {
  /** The parent's dispatch of the `Task` tool (registered with matcher "Task"). */
  const preToolUse = guarded('preToolUse', ALLOW, (p, ctx) => {
    const now = deps.now();
    const mem = loadMemory(ctx.env, now);
    const conversation = str(p.conversation_id) ?? str(p.session_id);
    const own = str(p.model);
    // The top-level model was "" on a live Task payload: fall back to one seen earlier in the same conversation.
    const parent: ParentModel = own ? { model: own, source: 'payload.model' } : remembered(mem, conversation);
    if (own && conversation) mem.models[conversation] = { v: own, t: now };
    const obs = observeTask(p, parent, now, ctx.env);
    let answer = ALLOW;
    if (obs) {
      answer = cursorAnswer(deps.route(obs, ctx.env, ctx.defer));
      if (obs.callId) mem.answers[obs.callId] = { v: answer, t: now };
    }
    if (own || obs) remember('preToolUse', ctx.env, mem, now);
    return answer;
  });

  const subagentStart = guarded('subagentStart', ALLOW, (p, ctx) => {
    const now = deps.now();
    const mem = loadMemory(ctx.env, now);
    const callId = str(p.tool_call_id) ?? str(p.subagent_id);
    // Already decided (and recorded) at preToolUse for this Task call: answer the same, record nothing twice.
    const earlier = callId ? mem.answers[callId] : undefined;
    if (earlier) return earlier.v;
    const fromParent = remembered(mem, str(p.parent_conversation_id));
    const modelId = str(p.model_id);
    const parent = fromParent.model ? fromParent : modelId ? { model: modelId, source: 'payload.model_id' } : NO_PARENT;
    const obs = observeSubagentStart(p, parent, now, ctx.env);
    const answer = cursorAnswer(deps.route(obs, ctx.env, ctx.defer));
    if (callId) {
      mem.answers[callId] = { v: answer, t: now };
      remember('subagentStart', ctx.env, mem, now);
    }
    return answer;
  });

  const subagentStop = guarded('subagentStop', EMPTY, (p, ctx) => {
    const obs = observeSubagentStop(p, deps.now());
    deps.spool({ type: 'completion', observation: obs, transcriptPath: null }, ctx.env);
    return EMPTY;
  });

  return {
    handlers: { preToolUse, subagentStart, subagentStop },
    failOpen: { preToolUse: ALLOW, subagentStart: ALLOW, subagentStop: EMPTY },
  };
}
