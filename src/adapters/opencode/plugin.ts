/**
 * The OpenCode plugin's callbacks. Every callback runs under its own deadline and fails open (OpenCode 1.18.33 waits
 * forever on a hanging hook and turns any throw in tool.execute.before into a deny, any throw in tool.execute.after
 * into the loss of the child's answer: reference/opencode.md §7). The only deliberate throw is a policy deny.
 */
import type { Decision } from '../../contracts/decision.js';
import type { DispatchObservation, CompletionObservation } from '../../contracts/observation.js';
import type { Policy } from '../../contracts/config.js';
import { declareModelPrices, loadRuntime } from '../../config/runtime.js';
import { diagnose } from '../../io/diagnostics.js';
import type { Env } from '../../io/paths.js';
import { spoolRecord } from '../../observer/spend-record.js';
import { COMPLETION_DEADLINE_MS, DISPATCH_DEADLINE_MS, deadlineFromEnv, failOpen } from '../in-process/deadline.js';
import { refreshOnce } from '../in-process/refresh.js';
import { ChildSessionCosts, opencodeSessionCost, usdTotal } from '../in-process/session-cost.js';
import { routeDispatch } from '../in-process/route.js';
import { applyDecision } from './apply.js';
import {
  completionObservation,
  correctionProblem,
  countAssistantMessages,
  readAfter,
  type ChildSession,
} from './complete.js';
import { configuredCosts, modelName, observeDispatch, readChatParams, readConfig } from './observe.js';
import { OpencodeState } from './state.js';
import { OpencodeChildSpend } from './child-stop.js';
import { agentSources } from './agent-files.js';
import { injectTierAgents } from './tier-agents.js';

type SdkResult = { data?: unknown } | unknown;
export type OpencodeClient = {
  session: {
    get(opts: { path: { id: string } }): Promise<SdkResult>;
    messages(opts: { path: { id: string } }): Promise<SdkResult>;
  };
};

export type PluginDeps = {
  env: Env;
  now: () => number;
  route: (obs: DispatchObservation, env: Env) => Decision;
  record: (obs: CompletionObservation, env: Env) => void;
  policy: (env: Env, cwd: string | null) => Policy;
  /** Starts the background price refresh (returns at once); called once, when the plugin loads. */
  refresh: (env: Env) => void;
};

export const defaultDeps = (env: Env = process.env): PluginDeps => ({
  env,
  now: Date.now,
  route: routeDispatch,
  // Spooled and counted in the budgets' spend summary (spend-record.ts).
  record: (observation, e) => spoolRecord({ type: 'completion', observation, transcriptPath: null }, e),
  // The policy cached per process by the shared runtime (re-read after its TTL), not a file read per dispatch.
  policy: (e, cwd) => loadRuntime(e, cwd).policy,
  refresh: (e) => void refreshOnce(e, 'opencode:load'),
});

const sdkData = (r: SdkResult): unknown =>
  r && typeof r === 'object' && 'data' in r ? (r as { data: unknown }).data : r;

export function createHooks(
  input: { client?: OpencodeClient; directory?: string; worktree?: string },
  deps: PluginDeps,
) {
  const state = new OpencodeState();
  const childCosts = new ChildSessionCosts();
  const running = new OpencodeChildSpend();
  const cwd = typeof input.directory === 'string' ? input.directory : null;
  const worktree = typeof input.worktree === 'string' ? input.worktree : null;
  const dispatchMs = deadlineFromEnv(deps.env, DISPATCH_DEADLINE_MS);
  const completionMs = deadlineFromEnv(deps.env, COMPLETION_DEADLINE_MS);
  // OpenCode has no session-start hook process: the plugin loading is where sessions begin.
  deps.refresh(deps.env);

  return {
    config: async (cfg: unknown): Promise<void> => {
      await failOpen(
        'opencode:config',
        dispatchMs,
        undefined,
        () => {
          // Where each agent was configured, read before the tier agents are added (those are tiergate's, not a file's).
          const agents = (cfg as { agent?: unknown } | null)?.agent;
          const sources =
            agents && typeof agents === 'object'
              ? agentSources(agents as Record<string, unknown>, deps.env, cwd, worktree)
              : new Map<string, string>();
          const added = injectTierAgents(cfg as { agent?: Record<string, never> }, deps.policy(deps.env, cwd));
          for (const name of added) sources.set(name, 'tiergate tiers.opencode');
          readConfig(cfg, state, sources);
          // Every configured model's cost (provider.<p>.models.<id>.cost, USD per 1M) before any dispatch needs it.
          declareModelPrices(deps.env, 'opencode', configuredCosts(cfg));
          if (added.length) diagnose('info', 'opencode:config', `tier agents added: ${added.join(', ')}`, {}, deps.env);
        },
        deps.env,
      );
    },

    'chat.params': async (i: unknown): Promise<void> => {
      await failOpen(
        'opencode:chat.params',
        dispatchMs,
        undefined,
        () => {
          readChatParams(i, state, deps.now());
          // model.cost is USD per 1M tokens: the price of last resort for a model no catalog knows (custom providers).
          const m = (i as { model?: { cost?: unknown } } | null)?.model;
          declareModelPrices(deps.env, 'opencode', [{ model: modelName(m), cost: m?.cost }]);
        },
        deps.env,
      );
      // A child past a budget (`budgets.action: "stop"`): its next request is not made (child-stop.ts says why here).
      const sid = (i as { sessionID?: unknown } | null)?.sessionID;
      const stop = await failOpen<string | null>(
        'opencode:chat.params',
        dispatchMs,
        null,
        () => running.stopMessage(sid, deps.env, cwd, deps.now(), 'request'),
        deps.env,
      );
      if (stop) throw new Error(stop);
    },

    // Child sessions and their assistant messages, for `budgets.action: "stop"` (child-stop.ts).
    event: async (i: unknown): Promise<void> => {
      await failOpen(
        'opencode:event',
        completionMs,
        undefined,
        () => running.onEvent((i as { event?: unknown } | null)?.event, deps.env, cwd),
        deps.env,
      );
    },

    'tool.execute.before': async (i: unknown, o: unknown): Promise<void> => {
      const denial = await failOpen<string | null>(
        'opencode:tool.execute.before',
        dispatchMs,
        null,
        async () => {
          const stop = running.stopMessage((i as { sessionID?: unknown } | null)?.sessionID, deps.env, cwd, deps.now());
          if (stop) return stop;
          const obs = observeDispatch(i, o, state, deps.now(), cwd);
          if (!obs) return null;
          // budgets.sessionTotal: OpenCode's own figures (the parent session's cost and its finished children's), asked
          // for only when that budget is set.
          if (input.client && obs.sessionId && deps.policy(deps.env, cwd).budgets.sessionTotal !== undefined) {
            const parent = opencodeSessionCost(
              sdkData(await input.client.session.get({ path: { id: obs.sessionId } })),
            );
            obs.sessionCostUsd = usdTotal([parent, ...childCosts.costs(obs.sessionId)]);
          }
          const decision = deps.route(obs, deps.env);
          const action = applyDecision(decision, o as { args: Record<string, unknown> });
          if (obs.callId && obs.sessionId) {
            const applied = action.kind === 'mutated' ? action.to : null;
            state.setPending(obs.callId, {
              sessionId: obs.sessionId,
              requestedAgent: obs.requestedAgent,
              appliedAgent: applied,
              expectedModel: applied ? (obs.candidates?.find((c) => c.value === applied)?.model ?? null) : null,
              tier: decision.tier as never,
              startedAt: obs.at,
            });
          }
          return action.kind === 'deny' ? action.message : null;
        },
        deps.env,
      );
      // A thrown Error is OpenCode's deny: the message reaches the model verbatim as the tool result (seen).
      if (denial !== null) throw new Error(denial);
    },

    'tool.execute.after': async (i: unknown, o: unknown): Promise<void> => {
      // Never throw here: a throw replaces the child's answer with the error text (1.18.33, seen).
      await failOpen(
        'opencode:tool.execute.after',
        completionMs,
        undefined,
        async () => {
          const facts = readAfter(i, o);
          if (!facts) return;
          const pending = facts.callId ? state.takePending(facts.callId) : undefined;
          const problem = correctionProblem(pending, facts);
          if (problem)
            diagnose('error', 'opencode:correction-not-applied', problem, { callId: facts.callId }, deps.env);
          let child: ChildSession | null = null;
          let requests = 1;
          if (facts.childSessionId && input.client) {
            const id = facts.childSessionId;
            const [s, m] = await Promise.all([
              input.client.session.get({ path: { id } }),
              input.client.session.messages({ path: { id } }),
            ]);
            child = (sdkData(s) as ChildSession | undefined) ?? null;
            requests = countAssistantMessages(sdkData(m));
            childCosts.add(facts.sessionId, id, opencodeSessionCost(child));
          }
          deps.record(completionObservation(facts, child, requests, pending, deps.now()), deps.env);
        },
        deps.env,
      );
    },
  };
}
