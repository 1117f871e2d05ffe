/**
 * Codex's dispatch hook (PreToolUse on collaborationspawn_agent), apart from the completion side so the dispatch
 * bundle (dist/hook-dispatch-codex.cjs) never carries the rollout readers. command.ts composes it with the other events.
 */
import type { Policy } from '../../contracts/config.js';
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
import type { Env } from '../../io/paths.js';
import { loadRuntime } from '../../config/runtime.js';
import { routeDispatch } from '../../runtime/dispatch.js';
import { answerFor } from './answer.js';
import { observeDispatch } from './observe.js';
import { childStopMessage } from '../../runtime/child-stop.js';
import { codexLineCost } from './child-cost.js';
import { SPAWN_TOOL_NAME } from './dispatch-payload.js';

export type CodexDispatchDeps = {
  route: (obs: DispatchObservation, env: Env, defer?: Defer) => Decision | Promise<Decision>;
  now: () => number;
  runtime: (env: Env, cwd: string | null) => { policy: Policy };
};

export const cwdOf = (payload: unknown): string | null => {
  const cwd = (payload as { cwd?: unknown } | null)?.cwd;
  return typeof cwd === 'string' ? cwd : null;
};

export function createCodexPreToolUse(deps: CodexDispatchDeps): HookHandler {
  return async (payload: unknown, ctx: HookContext): Promise<HookAnswer> => {
    // The same cached runtime routeDispatch uses: policy and prices are read once per process.
    const { policy } = deps.runtime(ctx.env, cwdOf(payload));
    const obs = observeDispatch(payload, { policy, at: deps.now(), env: ctx.env });
    if (!obs) return null;
    return jsonAnswer(answerFor(await deps.route(obs, ctx.env, ctx.defer)));
  };
}

/**
 * Every tool call (hooks-codex.json `ChildToolUse`, behind the child-stop marker): in a child thread (its payload
 * carries agent_id and the child's own rollout), under `budgets.action: "stop"`, denied once a budget is spent.
 */
export const childToolUse: HookHandler = async (payload: unknown, ctx: HookContext): Promise<HookAnswer> => {
  const p = payload as Record<string, unknown> | null;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  if (!p || !str(p.agent_id) || str(p.tool_name) === SPAWN_TOOL_NAME) return null;
  const message = await childStopMessage(
    {
      harness: 'codex',
      sessionId: str(p.session_id),
      childId: str(p.agent_id),
      agent: str(p.agent_type),
      transcript: str(p.transcript_path),
      cwd: cwdOf(p),
      lineCost: codexLineCost(str(p.model)),
      callId: str(p.tool_use_id),
    },
    ctx.env,
  );
  return message === null
    ? null
    : jsonAnswer({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: message,
        },
      });
};

export const dispatchAdapter: CommandAdapter = {
  handlers: {
    PreToolUse: createCodexPreToolUse({ route: routeDispatch, now: Date.now, runtime: loadRuntime }),
    ChildToolUse: childToolUse,
  },
};
