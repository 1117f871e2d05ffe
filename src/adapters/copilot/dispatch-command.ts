/**
 * Copilot CLI's dispatch hook (preToolUse, filtered to the `task` tool), apart from the completion side so the dispatch
 * bundle (dist/hook-dispatch-copilot.cjs) never carries the session-file parser or the drain. command.ts composes it
 * with the other events.
 *
 * Copilot CLI 1.0.102 fires preToolUse for EVERY tool (the camelCase format has no matcher): any other tool gets no
 * answer, before the policy or a file is read. And it treats a hook that exits 1 as a denial (seen): every failure here
 * ends in no output and exit 0 (the runner's fail-open; the shipped command also ends in `|| true`).
 */
import { jsonAnswer, type CommandAdapter, type HookContext, type HookHandler } from '../../contracts/hook.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { routeDispatch } from '../../runtime/dispatch.js';
import { hookAgentIndex } from '../../agent-files/agent-index.js';
import { indexedAgentFs } from '../../agent-files/fs-indexed.js';
import { lookupCopilotAgent, resolveCopilotChild, type AgentPlaces } from './agents.js';
import { answerFor } from './answer.js';
import { isTaskCall, readPreToolUse, type DispatchPayload } from './dispatch-payload.js';
import { copilotHome, eventsPath } from './events.js';
import { observeTask } from './observe.js';
import { dispatchPricing } from './multipliers.js';
import { readDispatchContext } from './parent-model.js';

/**
 * How long the hook re-reads the session file for the dispatching call's line: well inside the runner's deadline
 * (5 s) and the manifest's timeoutSec (10). The line was there at once in the runs seen here, and after ~tens of ms in
 * the reference's; past this the parent is unknown.
 */
export const PARENT_WAIT_MS = 750;
/** Tail cap: the call's line is within the last few records (system.message lines are ~28 KB each, seen). */
export const PARENT_TAIL_BYTES = 1024 * 1024;

/** The session files that may hold this call: the payload's session, or, inside a child, its parent's first. */
function sessionFiles(p: DispatchPayload, home: string | null): string[] {
  if (!home) return [];
  const ids = p.agentId ? [p.parentAgentId, p.sessionId] : [p.sessionId];
  return ids.flatMap((id) => (id ? [eventsPath(home, id)] : [])).filter((x): x is string => x !== null);
}

export const preToolUse: HookHandler = async (payload, ctx) => {
  if (!isTaskCall(payload)) return null;
  const p = readPreToolUse(payload);
  const args = p.toolArgs;
  const agentType = typeof args.agent_type === 'string' && args.agent_type !== '' ? args.agent_type : null;
  // A call Copilot will refuse itself (no agent_type) is none of tiergate's business.
  if (!agentType) return null;
  // Absent, null or empty means "names no model"; any other non-string is malformed, and garbage never turns into a
  // correction.
  const model = args.model;
  if (model !== undefined && model !== null && typeof model !== 'string') {
    diagnose(
      'warn',
      'copilot:preToolUse',
      'toolArgs.model is not a model name; dispatch left alone',
      { type: typeof model },
      ctx.env,
    );
    return null;
  }
  // The answer carries the whole arguments back: arguments that cannot be serialised cannot be corrected either.
  try {
    JSON.stringify(args);
  } catch (err) {
    diagnose('warn', 'copilot:preToolUse', `toolArgs cannot be serialised: ${errorText(err)}`, {}, ctx.env);
    return null;
  }
  const home = copilotHome(ctx.env);
  const dispatch = await readDispatchContext(sessionFiles(p, home), args, p.agentId ?? null, {
    maxBytes: PARENT_TAIL_BYTES,
    waitMs: PARENT_WAIT_MS,
  });
  if (!dispatch.parentModel)
    diagnose(
      'warn',
      'copilot:preToolUse',
      'the dispatching call is not in the session file yet: parent model unknown',
      {},
      ctx.env,
    );
  const child = await childModel(p, agentType, dispatch.byok, home, ctx);
  // Ask where the policy asks, always: a hook cannot tell a headless run here (1.0.102: the same payload and hook
  // variables in `-p` as in the TUI, seen), and Copilot itself denies an ask it cannot put to anyone, showing the
  // reason, which then carries the non-ask action's retry (answer.ts; docs/copilot-cli.md).
  const obs = { ...observeTask(p, dispatch, child, Date.now()), canAsk: true };
  const pricing = dispatchPricing(dispatch, child, ctx.env, obs.at);
  return jsonAnswer(answerFor(routeDispatch(obs, ctx.env, ctx.defer, pricing)));
};

/** What Copilot CLI runs this child on without tiergate (agents.ts), from the user's and the project's agent files. */
async function childModel(
  p: DispatchPayload,
  agentType: string,
  byok: boolean | null,
  home: string | null,
  ctx: HookContext,
) {
  const env = ctx.env;
  const places: AgentPlaces = {
    copilotHome: home,
    projectDir: env.COPILOT_PROJECT_DIR || p.cwd || null,
    home: env.HOME || null,
  };
  const callModel =
    typeof p.toolArgs.model === 'string' && p.toolArgs.model.trim() !== '' ? p.toolArgs.model.trim() : null;
  const child = await resolveCopilotChild({
    agentType,
    callModel,
    byok,
    // What this lookup read is kept for the next dispatch, written once the answer is out (agent-index.ts).
    lookup: (name) => lookupCopilotAgent(indexedAgentFs(hookAgentIndex(env, 'copilot', ctx)), name, places),
  });
  if (child.unknown)
    diagnose('warn', 'copilot:preToolUse', `${child.unknown}; no default tier, no correction`, {}, env);
  return child;
}

export const dispatchAdapter: CommandAdapter = { handlers: { preToolUse } };
