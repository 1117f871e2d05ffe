/**
 * Codex CLI command hooks: `node dist/hook.cjs codex <Event>` (manifest: hooks-codex.json).
 * Dispatch (PreToolUse on collaborationspawn_agent) is decided by routeDispatch; completions (SubagentStop) are
 * read from the child's rollout tail and appended to the spool. Nothing here waits on the network or SQLite.
 */
import type { SpoolRecord } from '../../contracts/spool.js';
import {
  jsonAnswer,
  type CommandAdapter,
  type HookAnswer,
  type HookContext,
  type HookHandler,
  type HookServices,
} from '../../contracts/hook.js';
import type { Env } from '../../io/paths.js';
import { loadPolicy } from '../../config/load.js';
import { spoolRecord } from '../../observer/spend-record.js';
import { loadRuntime } from '../../config/runtime.js';
import { routeDispatch } from '../../runtime/dispatch.js';
import { contextAnswer } from './answer.js';
import { childToolUse, createCodexPreToolUse, cwdOf, type CodexDispatchDeps } from './dispatch-command.js';
import { markChildStop } from '../../runtime/child-stop.js';
import { observeCompletion } from './completion.js';
import { SessionEndPayloadSchema, SessionStartPayloadSchema } from './payloads.js';
import { codexSessionContext } from './session-context.js';

export type CodexDeps = CodexDispatchDeps & {
  spool: (record: SpoolRecord, env: Env) => void;
  /** Drains the spool into the ledger and prices it (SessionEnd), within the hook's deadline. Loaded lazily: SQLite is off the dispatch path. */
  observe: (env: Env, cwd: string | null, hook: HookContext) => void | Promise<void>;
  /** Starts the background price refresh when due and returns at once (never waits on the network). */
  refresh: (env: Env) => void | Promise<void>;
  /** Starts the background push to the team ledger when team.url is set, and returns at once. */
  push?: (env: Env) => void | Promise<void>;
};

export function createCodexHandlers(deps: CodexDeps): Record<string, HookHandler> {
  return {
    PreToolUse: createCodexPreToolUse(deps),
    ChildToolUse: childToolUse,

    async SessionStart(payload: unknown, ctx: HookContext): Promise<HookAnswer> {
      const p = SessionStartPayloadSchema.parse(payload);
      await deps.refresh(ctx.env);
      const { policy } = loadPolicy(ctx.env, p.cwd ?? null);
      markChildStop(ctx.env, policy);
      const text = codexSessionContext(policy, p.model ?? null);
      return text ? jsonAnswer(contextAnswer('SessionStart', text)) : null;
    },

    // Codex clamps SessionEnd hooks to 3 s (0.169.0, seen): the manifest's timeout is 3, the runner's deadline inside it
    // (descriptors/codex.ts eventDeadlinesMs) and the drain inside that; a drain cut short leaves its spool to the next pass.
    async SessionEnd(payload: unknown, ctx: HookContext): Promise<HookAnswer> {
      const p = SessionEndPayloadSchema.parse(payload);
      await deps.observe(ctx.env, p.cwd ?? null, ctx);
      await deps.push?.(ctx.env);
      return null;
    },

    SubagentStop(payload: unknown, ctx: HookContext): HookAnswer {
      const { policy } = loadPolicy(ctx.env, cwdOf(payload));
      const { observation, transcriptPath } = observeCompletion(payload, {
        tailBytes: policy.observer.tailBytes,
        now: deps.now(),
        env: ctx.env,
      });
      deps.spool({ type: 'completion', observation, transcriptPath }, ctx.env);
      return null;
    },
  };
}

/**
 * The registry's command adapter (index.ts): every Codex event. The observer pass and the team push are the wiring's
 * services (src/wiring/command-hooks.ts): they read the harness registry, which lists this adapter.
 */
export const createCommandAdapter = (services: HookServices): CommandAdapter => ({
  handlers: createCodexHandlers({
    route: routeDispatch,
    // Completions are counted in the budgets' spend summary too (spend-record.ts).
    spool: spoolRecord,
    now: Date.now,
    runtime: loadRuntime,
    // Lazy: child_process and crypto stay out of the dispatch hook process.
    refresh: async (env) => void (await import('../../refresh/trigger.js')).triggerRefresh(env),
    observe: services.observe,
    push: services.push,
  }),
});
