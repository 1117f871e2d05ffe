/**
 * Hermes Agent command hooks (`node dist/hook.cjs hermes <event>`, started by tiergate's Python plugin):
 * pre_tool_call[delegate_task] decides (dispatch-command.ts); on_session_finalize of a top-level session drains the
 * spool (where the plugin appended the children's completions in Python) into the ledger and starts the team push.
 */
import type { CommandAdapter, HookServices } from '../../contracts/hook.js';
import { payloadObject } from '../../contracts/payload-guard.js';
import { preToolCall } from './dispatch-command.js';

export function createCommandAdapter(services: HookServices): CommandAdapter {
  return {
    handlers: {
      pre_tool_call: preToolCall,

      async on_session_finalize(payload, ctx) {
        const p = payloadObject(payload);
        await services.observe(ctx.env, typeof p.cwd === 'string' ? p.cwd : null, ctx);
        await services.push(ctx.env);
        return null;
      },
    },
  };
}
