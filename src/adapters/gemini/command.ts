/**
 * Gemini CLI command hooks (`node dist/hook.cjs gemini <Event>`, from the extension's hooks/hooks.json, extension.ts).
 * BeforeTool[invoke_agent] decides the dispatch (dispatch-command.ts); AfterTool[invoke_agent] reads the child's chat
 * file and spools its completion; SessionStart starts the background price refresh; SessionEnd drains the spool into
 * the ledger within the hook's deadline and starts the team push. Nothing here waits on the network.
 */
import type { CommandAdapter, HookAnswer, HookContext, HookServices } from '../../contracts/hook.js';
import { loadPolicy } from '../../config/load.js';
import { spoolRecord } from '../../observer/spend-record.js';
import { observeCompletion } from './completion.js';
import { beforeTool } from './dispatch-command.js';
import { SessionPayloadSchema } from './payloads.js';

export function createCommandAdapter(services: HookServices): CommandAdapter {
  return {
    handlers: {
      BeforeTool: beforeTool,

      AfterTool(payload: unknown, ctx: HookContext): HookAnswer {
        const raw = (payload as { cwd?: unknown } | null)?.cwd;
        const cwd = typeof raw === 'string' ? raw : null;
        const { policy } = loadPolicy(ctx.env, cwd);
        const read = observeCompletion(payload, {
          tailBytes: policy.observer.tailBytes,
          now: Date.now(),
          env: ctx.env,
        });
        // Counted in the budgets' spend summary too (spend-record.ts), so the parent's next dispatch sees this child.
        if (read)
          spoolRecord(
            { type: 'completion', observation: read.observation, transcriptPath: read.transcriptPath },
            ctx.env,
            { cwd },
          );
        return null;
      },

      async SessionStart(payload: unknown, ctx: HookContext): Promise<HookAnswer> {
        SessionPayloadSchema.parse(payload);
        // Lazy: child_process stays out of every other hook process.
        (await import('../../refresh/trigger.js')).triggerRefresh(ctx.env);
        return null;
      },

      async SessionEnd(payload: unknown, ctx: HookContext): Promise<HookAnswer> {
        const p = SessionPayloadSchema.parse(payload);
        await services.observe(ctx.env, p.cwd ?? null, ctx);
        await services.push(ctx.env);
        return null;
      },
    },
  };
}
