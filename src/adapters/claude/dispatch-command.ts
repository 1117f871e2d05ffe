/**
 * Claude Code's dispatch hook (PreToolUse on Agent/Task), apart from the completion side so the dispatch bundle
 * (dist/hook-dispatch-claude.cjs) never carries the transcript parsers or the drain. command.ts composes it with the others.
 */
import { withoutTrailingSlashes } from '../../io/text.js';
import { jsonAnswer, type CommandAdapter, type HookContext, type HookHandler } from '../../contracts/hook.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { routeDispatch } from '../../runtime/dispatch.js';
import { preToolUseAnswer } from './answer.js';
import { observePreToolUse, preToolUseCall } from './observe.js';
import { agentLookup, resolveChildModel, type AgentPlaces, type ChildModel } from './agent-definitions.js';
import { nodeAgentFs } from '../../agent-files/fs-node.js';
import { readParentModel } from './parent-model.js';
import { readPreToolUse, SUBAGENT_TOOLS, type DispatchPayload } from './dispatch-payload.js';
import { standAsideForGrok } from './grok-guard.js';
import { childStopMessage } from '../../runtime/child-stop.js';
import { claudeLineCost } from './child-cost.js';
import { ASK_VAR, attended } from './attended.js';

export const MODULE_LIVE_VAR = 'TIERGATE_MODULE_LIVE';

export const moduleLive = (ctx: HookContext) => ctx.env[MODULE_LIVE_VAR] === '1';

/** Parent-transcript wait for the dispatching assistant line: well inside the runner's deadline (reference §6.1). */
const PARENT_WAIT_MS = 400;
/** Byte cap for the parent tail scan; the dispatching line is within the last few records. */
const PARENT_TAIL_BYTES = 1024 * 1024;

/** A subagent's own PreToolUse names its transcript by agent_id while transcript_path is the root session's. */
function parentTranscript(p: DispatchPayload): string | null {
  if (!p.transcript_path) return null;
  if (!p.agent_id) return p.transcript_path;
  return `${p.transcript_path.replace(/\.jsonl$/, '')}/subagents/agent-${p.agent_id}.jsonl`;
}

export const preToolUse: HookHandler = standAsideForGrok(async (payload, ctx) => {
  const p = readPreToolUse(payload);
  if (!SUBAGENT_TOOLS.has(p.tool_name)) return p.agent_id ? childToolCall(p, ctx) : null;
  // The hooks module decides dispatches; this hook runs beside it only for children's tool calls: the module sets
  // TIERGATE_CHILD_STOP under `budgets.action: "stop"`, and hooks.json then starts it for every tool call.
  // Under an ask policy in an attended session the module stands aside (it set TIERGATE_ASK) and this hook decides.
  if (moduleLive(ctx) && ctx.env[ASK_VAR] !== '1') return null;
  // Absent (or null) means "names no model" and gets the default tier; any other non-string is a malformed payload,
  // and garbage must never turn into a correction (found by test/unit/reliability/fuzz-hooks.test.ts).
  const model = p.tool_input.model;
  if (model !== undefined && model !== null && (typeof model !== 'string' || model === '')) {
    diagnose(
      'warn',
      'claude:PreToolUse',
      'tool_input.model is not a model name; dispatch left alone',
      { type: typeof model },
      ctx.env,
    );
    return null;
  }
  // The answer carries the whole tool input back: one that cannot be serialised (nesting past the stack) cannot be
  // corrected either, so leave it before routeDispatch records a decision that would never be delivered.
  try {
    JSON.stringify(p.tool_input);
  } catch (err) {
    diagnose('warn', 'claude:PreToolUse', `tool_input cannot be serialised: ${errorText(err)}`, {}, ctx.env);
    return null;
  }
  const parent = await readParentModel(parentTranscript(p), p.tool_use_id ?? null, {
    maxBytes: PARENT_TAIL_BYTES,
    waitMs: PARENT_WAIT_MS,
  });
  const child = await childModel(p, parent.model, ctx);
  const obs = { ...observePreToolUse(p, parent, child, Date.now()), canAsk: attended(ctx.env) };
  const decision = routeDispatch(obs, ctx.env, ctx.defer);
  try {
    return jsonAnswer(preToolUseAnswer(decision, p.tool_input));
  } catch (err) {
    diagnose('error', 'claude:PreToolUse', (err as Error).message, {}, ctx.env);
    return null;
  }
});

/**
 * A tool call inside a running child (its PreToolUse carries agent_id and agent_type): under `budgets.action: "stop"`,
 * denied once a budget is spent, counting what this child has spent so far, and the child recorded as stopped once
 * (runtime/child-stop.ts). Any other tool call is left alone.
 */
async function childToolCall(p: DispatchPayload, ctx: HookContext) {
  const message = await childStopMessage(
    {
      harness: 'claude',
      sessionId: p.session_id ?? null,
      childId: p.agent_id ?? null,
      agent: p.agent_type || null,
      transcript: parentTranscript(p),
      cwd: ctx.env.CLAUDE_PROJECT_DIR || p.cwd || null,
      lineCost: claudeLineCost,
      callId: p.tool_use_id ?? null,
    },
    ctx.env,
  );
  if (message === null) return null;
  return jsonAnswer({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: message },
  });
}

/**
 * What Claude Code runs this child on without tiergate (agent-definitions.ts), from the project's and the user's agent
 * files. The project is CLAUDE_PROJECT_DIR (what Claude Code gives its hooks), else the payload's cwd. A child whose
 * model cannot be told gets one diagnostic and no rewrite.
 */
async function childModel(p: DispatchPayload, parentModel: string | null, ctx: HookContext): Promise<ChildModel> {
  const env = ctx.env;
  const home = env.HOME || null;
  const places: AgentPlaces = {
    projectDir: env.CLAUDE_PROJECT_DIR || p.cwd || null,
    configDir: env.CLAUDE_CONFIG_DIR || (home ? `${withoutTrailingSlashes(home)}/.claude` : null),
    home,
  };
  const child = await resolveChildModel({
    ...preToolUseCall(p),
    parentModel,
    env,
    lookup: agentLookup(nodeAgentFs, places),
  });
  if (child.unknown)
    diagnose(
      'warn',
      'claude:PreToolUse',
      `${child.unknown}; no default tier, no correction`,
      { callId: p.tool_use_id ?? null },
      env,
    );
  return child;
}

export const dispatchAdapter: CommandAdapter = { handlers: { PreToolUse: preToolUse } };
