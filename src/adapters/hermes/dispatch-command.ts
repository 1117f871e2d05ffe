/**
 * Hermes Agent's dispatch hook (`node dist/hook.cjs hermes pre_tool_call`, started by tiergate's Python plugin for
 * delegate_task only), apart from the completion side so dist/hook-dispatch-hermes.cjs carries no zod and no drain.
 * Every failure ends in the runner's fail-open (no output, exit 0); the plugin also fails open on its own side
 * (timeout, missing node), because Hermes after 0.19.0 fails closed on a slow or raising pre_tool_call.
 */
import { jsonAnswer, type CommandAdapter, type HookHandler } from '../../contracts/hook.js';
import { diagnose } from '../../io/diagnostics.js';
import { routeDispatch } from '../../runtime/dispatch.js';
import { answerFor } from './answer.js';
import { DISPATCH_TOOL, readDispatch } from './dispatch-payload.js';
import { observeDelegation } from './observe.js';

export const preToolCall: HookHandler = async (payload, ctx) => {
  const p = readDispatch(payload);
  if (p.tool_name !== DISPATCH_TOOL) return null;
  if (!p.parent_model) diagnose('warn', 'hermes:pre_tool_call', 'parent model unknown to the plugin', {}, ctx.env);
  return jsonAnswer(answerFor(routeDispatch(observeDelegation(p, Date.now()), ctx.env, ctx.defer)));
};

export const dispatchAdapter: CommandAdapter = { handlers: { pre_tool_call: preToolCall } };
