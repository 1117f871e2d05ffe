/**
 * The command hooks wired together: the runner (src/hook-runner) with each harness's command adapter, given the
 * services its lifecycle handlers start (the observer pass, the team push), which themselves read the harness
 * registry; neither the runner nor an adapter imports the other or these. dist/hook-events.cjs runs this table; tests,
 * the demo and benches drive it in-process through runHook. Each dispatch bundle wires its one harness's dispatch
 * adapter itself (src/entries/hook-dispatch-<harness>.ts).
 */
import { DESCRIPTORS, EVENT_DEADLINE_CAPS } from '../descriptors/index.js';
import type { Env } from '../contracts/env.js';
import { HARNESS_IDS } from '../contracts/harness-ids.js';
import type { AdapterTable, CommandAdapterFactory, HookServices } from '../contracts/hook.js';
import { runHookWith, type RunOutcome, type StdinSource } from '../hook-runner/core.js';

export { EVENT_DEADLINE_CAPS };
export type { RunOutcome, StdinSource } from '../hook-runner/core.js';

/** Loaded only when a handler calls them: SQLite, the drain and child_process stay out of every other hook. */
export const HOOK_SERVICES: HookServices = {
  observe: async (env, cwd, hook) => (await import('../collect/drain-hook.js')).drainLedgerFromHook(env, cwd, hook),
  push: async (env) => void (await import('../team/trigger.js')).triggerPush(env),
};

/**
 * A harness's command adapter, by id: src/adapters/<id>/command.ts (harness-module.ts says why not through the
 * registry). esbuild bundles every file the pattern matches; the id is always one of HARNESS_IDS, never argv.
 */
const loadCommand = async (id: string): Promise<CommandAdapterFactory> =>
  ((await import(`../adapters/${id}/command.ts`)) as { createCommandAdapter: CommandAdapterFactory })
    .createCommandAdapter;

/**
 * Harness id -> its command adapter, for every harness with command hooks (its descriptor names dispatch events),
 * loaded on first use so a hook process evaluates only its own. Tests add fakes.
 */
export const COMMAND_ADAPTERS: AdapterTable = Object.fromEntries(
  HARNESS_IDS.filter((id) => DESCRIPTORS[id].dispatchEvents.length > 0).map((id) => [
    id,
    async () => (await loadCommand(id))(HOOK_SERVICES),
  ]),
);

export function runHook(harness: string, event: string, stdin: StdinSource, env: Env): Promise<RunOutcome> {
  return runHookWith(COMMAND_ADAPTERS, harness, event, stdin, env, EVENT_DEADLINE_CAPS);
}
