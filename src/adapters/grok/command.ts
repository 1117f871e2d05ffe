/**
 * Grok Build command hooks (`node dist/hook.cjs grok <Event>`, from ~/.grok/hooks/tiergate.json, install.ts).
 * PreToolUse[spawn_subagent] decides (dispatch-command.ts); PostToolUse[spawn_subagent], SubagentStop and a child's
 * SessionEnd spool its completion (completion.ts); SessionStart starts the background price refresh; the parent's
 * SessionEnd drains the spool into the ledger within the hook's deadline and starts the team push. Nothing here waits
 * on the network. A failure is the runner's fail-open (no output, exit 0): Grok would read exit 2 as a denial.
 */
import type { CommandAdapter, HookAnswer, HookContext, HookServices } from '../../contracts/hook.js';
import { spoolRecord } from '../../observer/spend-record.js';
import { completionFromChild, completionFromPostToolUse, type CompletionRead } from './completion.js';
import { preToolUse } from './dispatch-command.js';
import { PostToolUsePayloadSchema, SessionPayloadSchema, SubagentStopPayloadSchema } from './payloads.js';

function spool(read: CompletionRead | null, ctx: HookContext, cwd: string | null): HookAnswer {
  // Counted in the budgets' spend summary too (spend-record.ts), so the parent's next dispatch sees this child.
  if (read)
    spoolRecord({ type: 'completion', observation: read.observation, transcriptPath: read.transcriptPath }, ctx.env, {
      cwd,
    });
  return null;
}

export function createCommandAdapter(services: HookServices): CommandAdapter {
  return {
    handlers: {
      PreToolUse: preToolUse,

      PostToolUse(payload, ctx) {
        const p = PostToolUsePayloadSchema.parse(payload);
        return spool(completionFromPostToolUse(p, Date.now()), ctx, p.cwd ?? null);
      },

      SubagentStop(payload, ctx) {
        const p = SubagentStopPayloadSchema.parse(payload);
        return spool(completionFromChild(p, Date.now()), ctx, p.cwd ?? null);
      },

      async SessionStart(payload, ctx) {
        SessionPayloadSchema.parse(payload);
        // Lazy: child_process stays out of every other hook process.
        (await import('../../refresh/trigger.js')).triggerRefresh(ctx.env);
        return null;
      },

      async SessionEnd(payload, ctx) {
        const p = SessionPayloadSchema.parse(payload);
        // A child's end: its usage.json is written by now (a background child's only reliable moment).
        if (p.subagentType) return spool(completionFromChild(p, Date.now()), ctx, p.cwd ?? null);
        await services.observe(ctx.env, p.cwd ?? null, ctx);
        await services.push(ctx.env);
        return null;
      },
    },
  };
}
