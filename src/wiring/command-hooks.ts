/**
 * The command hooks wired together: the runner (src/hook-runner) with every harness's command adapter from the
 * registry (src/adapters), each given the services its lifecycle handlers start (the observer pass, the team push),
 * which themselves read the registry; neither the runner nor an adapter imports the other or these. dist/hook-events.cjs
 * runs this table; tests, the demo and benches drive it in-process through runHook. Each dispatch bundle wires its one
 * harness's dispatch adapter itself (src/entries/hook-dispatch-<harness>.ts).
 */
import type { Env } from '../contracts/env.js';
import type { AdapterTable, HookServices } from '../contracts/hook.js';
import { harnessList } from '../adapters/index.js';
import { runHookWith, type RunOutcome, type StdinSource } from '../hook-runner/core.js';

export { DEFAULT_DEADLINE_MS } from '../hook-runner/core.js';
export type { RunOutcome, StdinSource } from '../hook-runner/core.js';

/** Loaded only when a handler calls them: SQLite, the drain and child_process stay out of every other hook. */
export const HOOK_SERVICES: HookServices = {
  observe: async (env, cwd, hook) => (await import('../observer/drain-hook.js')).drainLedgerFromHook(env, cwd, hook),
  push: async (env) => void (await import('../team/trigger.js')).triggerPush(env),
};

/** Harness id -> its command adapter, loaded on first use so a hook process evaluates only its own. Tests add fakes. */
export const COMMAND_ADAPTERS: AdapterTable = Object.fromEntries(
  harnessList().flatMap((m) => (m.command ? [[m.id, async () => (await m.command!())(HOOK_SERVICES)] as const] : [])),
);

export function runHook(harness: string, event: string, stdin: StdinSource, env: Env): Promise<RunOutcome> {
  return runHookWith(COMMAND_ADAPTERS, harness, event, stdin, env);
}
