/**
 * Codex CLI command hooks: `node dist/hook.js codex <Event>` (manifest: hooks-codex.json).
 * Dispatch (PreToolUse on collaborationspawn_agent) is decided by routeDispatch; completions (SubagentStop) are
 * read from the child's rollout tail and appended to the spool. Nothing here waits on the network or SQLite.
 */
import type { Decision } from '../../contracts/decision.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import type { SpoolRecord } from '../../contracts/spool.js';
import type { HookAnswer, HookContext, HookHandler } from '../../hook-runner/types.js';
import type { Env } from '../../io/paths.js';
import { loadPolicy } from '../../config/load.js';
import { appendSpool } from '../../observer/spool.js';
import { answerFor, contextAnswer } from './answer.js';
import { observeCompletion } from './completion.js';
import { observeDispatch } from './observe.js';
import { SessionStartPayloadSchema } from './payloads.js';
import { codexSessionContext } from './session-context.js';

export type CodexDeps = {
  route: (obs: DispatchObservation, env: Env) => Decision | Promise<Decision>;
  spool: (record: SpoolRecord, env: Env) => void;
  now: () => number;
};

const cwdOf = (payload: unknown): string | null => {
  const cwd = (payload as { cwd?: unknown } | null)?.cwd;
  return typeof cwd === 'string' ? cwd : null;
};

const json = (v: unknown): HookAnswer => (v === null ? null : { stdout: JSON.stringify(v) });

export function createCodexHandlers(deps: CodexDeps): Record<string, HookHandler> {
  return {
    async PreToolUse(payload: unknown, ctx: HookContext): Promise<HookAnswer> {
      const { policy } = loadPolicy(ctx.env, cwdOf(payload));
      const obs = observeDispatch(payload, { policy, at: deps.now() });
      if (!obs) return null;
      return json(answerFor(await deps.route(obs, ctx.env)));
    },

    SessionStart(payload: unknown, ctx: HookContext): HookAnswer {
      const p = SessionStartPayloadSchema.parse(payload);
      const { policy } = loadPolicy(ctx.env, p.cwd ?? null);
      const text = codexSessionContext(policy, p.model ?? null);
      return text ? json(contextAnswer('SessionStart', text)) : null;
    },

    SubagentStop(payload: unknown, ctx: HookContext): HookAnswer {
      const { policy } = loadPolicy(ctx.env, cwdOf(payload));
      const { observation, transcriptPath } = observeCompletion(payload, { tailBytes: policy.observer.tailBytes, now: deps.now(), env: ctx.env });
      deps.spool({ type: 'completion', observation, transcriptPath }, ctx.env);
      return null;
    },
  };
}

export const handlers: Record<string, HookHandler> = createCodexHandlers({
  route: async (obs, env) => (await import('../../runtime/dispatch.js')).routeDispatch(obs, env),
  spool: appendSpool,
  now: Date.now,
});
