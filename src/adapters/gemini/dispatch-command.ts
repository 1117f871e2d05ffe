/**
 * Gemini CLI's dispatch hook (BeforeTool on invoke_agent), apart from the completion side so the dispatch bundle
 * (dist/hook-dispatch-gemini.cjs) carries no zod, no chat-file summing and no drain. command.ts composes it with the rest.
 */
import type { Decision } from '../../contracts/decision.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import {
  jsonAnswer,
  type CommandAdapter,
  type Defer,
  type HookAnswer,
  type HookContext,
  type HookHandler,
} from '../../contracts/hook.js';
import type { Env } from '../../contracts/env.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { RefusedFile } from '../../io/read-capped.js';
import { routeDispatch } from '../../runtime/dispatch.js';
import { hookAgentIndex } from '../../agent-files/agent-index.js';
import { loadAgents, type AgentTable } from './agents.js';
import { answerFor } from './answer.js';
import { readParentTurn } from './chat-file.js';
import { observeDispatch, type ParentRead } from './observe.js';
import { DISPATCH_TOOL, readBeforeTool } from './dispatch-payload.js';

/**
 * The dispatching model message is the newest `gemini` line of the parent's chat file when BeforeTool runs (29 of 29
 * runs on 0.61.0): a short tail read, no wait. 1 MiB covers a model message with a long text beside the call.
 */
export const PARENT_TAIL_BYTES = 1024 * 1024;

/** The parent's model and its dispatching message, from its chat file; unknown (never guessed) when unreadable. */
export function readParent(path: string | null, env: Env): ParentRead {
  if (!path) return { model: null, messageId: null, source: null };
  try {
    return { ...readParentTurn(path, PARENT_TAIL_BYTES), source: 'chat-file-tail' };
  } catch (err) {
    // Missing (not written yet) is unknown; a FIFO or device in its place is refused at once and worth a line.
    if (err instanceof RefusedFile)
      diagnose('warn', 'gemini:parent-model', `chat file ${errorText(err)}`, { path }, env);
    return { model: null, messageId: null, source: null };
  }
}

export type GeminiDispatchDeps = {
  route: (obs: DispatchObservation, env: Env, defer?: Defer) => Decision | Promise<Decision>;
  now: () => number;
  agents: (env: Env, cwd: string | null, parentModel: string | null, ctx?: HookContext) => AgentTable;
};

/** The agents as loadAgents finds them, through Gemini's agent index, kept for the next dispatch once the answer is out. */
export function indexedAgents(env: Env, cwd: string | null, parentModel: string | null, ctx?: HookContext): AgentTable {
  return loadAgents(env, cwd, parentModel, hookAgentIndex(env, 'gemini', ctx));
}

export function createBeforeTool(deps: GeminiDispatchDeps): HookHandler {
  return async (payload: unknown, ctx: HookContext): Promise<HookAnswer> => {
    const p = readBeforeTool(payload);
    if (p.tool_name !== DISPATCH_TOOL) return null;
    const parent = readParent(p.transcript_path ?? null, ctx.env);
    const obs = observeDispatch(p, parent, deps.agents(ctx.env, p.cwd ?? null, parent.model, ctx), deps.now());
    if (!obs) return null;
    return jsonAnswer(answerFor(await deps.route(obs, ctx.env, ctx.defer)));
  };
}

export const beforeTool: HookHandler = createBeforeTool({ route: routeDispatch, now: Date.now, agents: indexedAgents });

export const dispatchAdapter: CommandAdapter = { handlers: { BeforeTool: beforeTool } };
