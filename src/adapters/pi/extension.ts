/**
 * tiergate's pi extension handlers. pi 0.73.1 (seen): a throw while loading makes pi exit 1, a throw in `tool_call`
 * blocks the tool, no handler is ever timed out. So: registration is wrapped, every handler runs under its own
 * deadline and fails open, and the only block is a policy deny returned as `{ block: true, reason }`.
 */
import type { Decision } from '../../contracts/decision.js';
import type { CompletionObservation, DispatchObservation } from '../../contracts/observation.js';
import type { Policy } from '../../contracts/config.js';
import { declareModelPrices, loadRuntime } from '../../config/runtime.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import type { Env } from '../../io/paths.js';
import { spoolRecord } from '../../observer/spend-record.js';
import { COMPLETION_DEADLINE_MS, DISPATCH_DEADLINE_MS, deadlineFromEnv, failOpen } from '../in-process/deadline.js';
import { refreshOnce } from '../in-process/refresh.js';
import { piSessionCost } from '../in-process/session-cost.js';
import { routeDispatch } from '../in-process/route.js';
import { loadPiAgents, piDefault, type PiAgent, type PiDefault } from './agents.js';
import {
  observePiCompletions,
  observePiDispatch,
  piModelName,
  piSessionId,
  type PiCtx,
  type PiSlot,
} from './observe.js';
import { PARENT_SESSION_VAR, PiChildSpend, piChildAgent } from './child-stop.js';
import { registryPrices } from './registry-prices.js';

export type PiApi = { on(event: string, handler: (event: any, ctx: any) => unknown): void };

export type PiDeps = {
  env: Env;
  argv: string[];
  now: () => number;
  /** May answer later (the handler awaits it under its deadline): a dependency that hangs is cut there. */
  route: (obs: DispatchObservation, env: Env) => Decision | Promise<Decision>;
  record: (obs: CompletionObservation, env: Env) => void;
  policy: (env: Env, cwd: string | null) => Policy;
  agents: (env: Env, cwd: string | null) => Map<string, PiAgent>;
  /** pi's default model: where a child of an agent without `model:` runs (a bare string: no `from` known). */
  defaultModel: (env: Env, cwd: string | null) => string | PiDefault | null;
  /** Starts the background price refresh (returns at once); called once, at load. */
  refresh: (env: Env) => void;
};

export const defaultPiDeps = (env: Env = process.env, argv: string[] = process.argv): PiDeps => ({
  env,
  argv,
  now: Date.now,
  route: routeDispatch,
  // Spooled and counted in the budgets' spend summary (spend-record.ts).
  record: (observation, e) => spoolRecord({ type: 'completion', observation, transcriptPath: null }, e),
  // The policy cached per process by the shared runtime (re-read after its TTL), not a file read per dispatch.
  policy: (e, cwd) => loadRuntime(e, cwd).policy,
  agents: (e, cwd) => loadPiAgents(e, cwd),
  defaultModel: (e, cwd) => piDefault(e, cwd),
  refresh: (e) => void refreshOnce(e, 'pi:load'),
});

/**
 * A `pi` process started by a subagent tool. No variable marks one (0.73.1, seen); pi's example starts children with
 * `--mode json -p --no-session`, tiergate's own tool also sets TIERGATE_PI_CHILD=1.
 */
export function isPiChild(argv: string[], env: Env): boolean {
  if (env.TIERGATE_PI_CHILD === '1') return true;
  return argv.includes('--no-session') && argv.includes('-p') && argv.includes('--mode');
}

export type Gate = { block: true; reason: string } | undefined;

/**
 * Every model this call's decisions will price: the parent (ctx.model carries its cost), each slot's child, and the
 * choices a correction may pick (the tier agents' models, the policy's tier map). Their prices come from pi's own
 * registry, the last price layer (prices/declared.ts): catalogs still win for the models they know.
 */
export function declarePiPrices(env: Env, ctx: PiCtx, slots: PiSlot[], policy: Policy): void {
  const names: Array<string | null> = [];
  for (const { obs } of slots) {
    names.push(obs.requestedModel, obs.agentModel);
    for (const c of obs.candidates ?? []) names.push(c.model);
  }
  for (const m of Object.values(policy.tiers.pi)) names.push(typeof m === 'string' ? m : null);
  declareModelPrices(env, 'pi', [
    { model: piModelName(ctx.model), cost: (ctx.model as { cost?: unknown } | undefined)?.cost },
    ...registryPrices(ctx.modelRegistry, names),
  ]);
}

export function registerTiergate(pi: PiApi, deps: PiDeps): void {
  const dispatchMs = deadlineFromEnv(deps.env, DISPATCH_DEADLINE_MS);
  const completionMs = deadlineFromEnv(deps.env, COMPLETION_DEADLINE_MS);
  // In a child, ctx.model is the child's own model: gating ITS subagent calls against it is the right ceiling, and
  // the child's own turns are never recorded here (the parent records them from the tool result), so nothing is
  // counted twice. The child flag only labels diagnostics.
  const child = isPiChild(deps.argv, deps.env);

  const childSpend = child ? new PiChildSpend(piChildAgent(deps.argv)) : null;
  if (childSpend)
    pi.on('message_end', async (event: unknown, ctx: PiCtx): Promise<undefined> => {
      const cwd = typeof ctx?.cwd === 'string' ? ctx.cwd : null;
      await failOpen('pi:message_end', completionMs, undefined, () => childSpend.add(event, deps.env, cwd), deps.env);
      return undefined;
    });

  pi.on('tool_call', async (event: unknown, ctx: PiCtx): Promise<Gate> => {
    const denial = await failOpen<string | null>(
      'pi:tool_call',
      dispatchMs,
      null,
      async () => {
        const cwd = typeof ctx?.cwd === 'string' ? ctx.cwd : null;
        // A child under `budgets.action: "stop"`: any tool call past a budget is refused (child-stop.ts).
        const stop = childSpend?.stopMessage(deps.env, cwd, deps.now(), piSessionId(ctx ?? {}));
        if (stop) return stop;
        // The parent's session, for the children this call may start (their session budget counts with it).
        const session = child ? null : piSessionId(ctx ?? {});
        if (session) deps.env[PARENT_SESSION_VAR] = session;
        const policy = deps.policy(deps.env, cwd);
        const def = deps.defaultModel(deps.env, cwd);
        const { model: defaultModel, from: defaultModelFrom } =
          typeof def === 'string' || def === null ? { model: def, from: null } : def;
        const slots = observePiDispatch({
          event,
          ctx: ctx ?? {},
          agents: deps.agents(deps.env, cwd),
          defaultModel,
          defaultModelFrom,
          policy,
          now: deps.now(),
        });
        if (slots.length === 0) return null;
        // budgets.sessionTotal: pi's own figure for this session, summed only when that budget is set.
        if (policy.budgets.sessionTotal !== undefined) {
          const total = piSessionCost(ctx);
          for (const slot of slots) slot.obs.sessionCostUsd = total;
        }
        // Before routing: a new declaration drops the cached price lookup, so the decisions below price with it.
        declarePiPrices(deps.env, ctx ?? {}, slots, policy);
        const denials: string[] = [];
        const fixes: Array<() => void> = [];
        for (const slot of slots) {
          const d = await deps.route(slot.obs, deps.env);
          if (d.action === 'deny') denials.push(slots.length > 1 ? `${slot.label}: ${d.message}` : d.message);
          else if (d.action === 'correct' && d.field === slot.field)
            fixes.push(() => {
              slot.holder[slot.field] = d.value;
            });
        }
        if (denials.length) return denials.join('\n');
        // pi runs the tool with the mutated input (seen: `event.input.agent = "cheap"` ran the cheap child).
        for (const fix of fixes) fix();
        return null;
      },
      deps.env,
    );
    if (denial === null) return undefined;
    if (child) diagnose('info', 'pi:tool_call', 'denied inside a child pi process', {}, deps.env);
    return { block: true, reason: denial };
  });

  pi.on('tool_result', async (event: unknown, ctx: PiCtx): Promise<undefined> => {
    // Returning nothing leaves the result unchanged; a throw here is only logged by pi (seen), but stay silent anyway.
    await failOpen(
      'pi:tool_result',
      completionMs,
      undefined,
      async () => {
        const completions = observePiCompletions(event, ctx ?? {}, deps.now());
        if (completions.length === 0) return;
        for (const c of completions) deps.record(c, deps.env);
      },
      deps.env,
    );
    return undefined;
  });

  // pi has no session-start hook process: the extension loading is where a session begins. A child pi process
  // leaves it to its parent, which already started it (or found prices fresh).
  if (!child) deps.refresh(deps.env);
}

/** The extension factory body: never throws (a factory throw makes pi exit 1, seen). */
export function safeRegister(pi: PiApi, deps: () => PiDeps): void {
  try {
    registerTiergate(pi, deps());
  } catch (err) {
    diagnose('error', 'pi:load', errorText(err));
  }
}
