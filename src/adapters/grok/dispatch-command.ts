/**
 * Grok Build's dispatch hook (PreToolUse on spawn_subagent, from ~/.grok/hooks/tiergate.json), apart from the
 * completion side so the dispatch bundle (dist/hook-dispatch-grok.cjs) carries no zod, no usage parsing and no drain.
 * command.ts composes it with the other events.
 *
 * Grok 1.0.41 reads a hook's exit 2 as a denial and exit 1, bad JSON or a timeout as "go on": every failure here ends
 * in the runner's fail-open (no output, exit 0).
 */
import type { Env } from '../../contracts/env.js';
import { jsonAnswer, type CommandAdapter, type HookHandler } from '../../contracts/hook.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { routeDispatch } from '../../runtime/dispatch.js';
import { agentFileModel, knownModels, readGrokConfig, resolveGrokChild } from './catalog.js';
import { answerFor } from './answer.js';
import { DISPATCH_TOOL, readPreToolUse, type DispatchPayload } from './dispatch-payload.js';
import { observeSpawn, type ParentRead } from './observe.js';
import { sessionDirOf, sessionModel } from './session-files.js';

/** The parent's model is not in the payload: summary.json beside its transcript says it (`current_model_id`). */
export function readParent(p: DispatchPayload, env: Env): ParentRead {
  if (!p.transcriptPath) return { model: null, source: null };
  try {
    const model = sessionModel(sessionDirOf(p.transcriptPath));
    return { model, source: model ? 'summary.json' : null };
  } catch (err) {
    diagnose('warn', 'grok:parent-model', errorText(err), {}, env);
    return { model: null, source: null };
  }
}

export const preToolUse: HookHandler = async (payload, ctx) => {
  const p = readPreToolUse(payload);
  if (p.toolName !== DISPATCH_TOOL) return null;
  const input = p.toolInput;
  // Grok validates the call after this hook: a `model` that is not a name is malformed, and garbage never turns into a
  // correction. Absent, null or empty means "names no model". `resume_from` continues a child on its own model (the
  // spawn's model is ignored there, reference B.3): nothing to decide.
  const model = input.model;
  if (model !== undefined && model !== null && typeof model !== 'string') {
    diagnose('warn', 'grok:PreToolUse', 'toolInput.model is not a model name; spawn left alone', {}, ctx.env);
    return null;
  }
  if (typeof input.resume_from === 'string' && input.resume_from !== '') return null;
  // The answer carries the whole input back: one that cannot be serialised cannot be corrected either.
  try {
    JSON.stringify(input);
  } catch (err) {
    diagnose('warn', 'grok:PreToolUse', `toolInput cannot be serialised: ${errorText(err)}`, {}, ctx.env);
    return null;
  }
  const config = readGrokConfig(ctx.env);
  const type = typeof input.subagent_type === 'string' && input.subagent_type !== '' ? input.subagent_type : null;
  const child = resolveGrokChild({
    callModel: typeof model === 'string' && model.trim() !== '' ? model.trim() : null,
    type,
    config,
    agentFile: (t) => agentFileModel(ctx.env, p.cwd ?? null, t),
  });
  const parent = readParent(p, ctx.env);
  if (!parent.model)
    diagnose('warn', 'grok:PreToolUse', 'parent model unknown (no summary.json beside the transcript)', {}, ctx.env);
  const obs = observeSpawn(p, parent, child, knownModels(config), Date.now());
  return jsonAnswer(answerFor(routeDispatch(obs, ctx.env, ctx.defer)));
};

export const dispatchAdapter: CommandAdapter = { handlers: { PreToolUse: preToolUse } };
