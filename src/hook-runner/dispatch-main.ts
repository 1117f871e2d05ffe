/**
 * The entry of a dispatch bundle (dist/hook-dispatch-<harness>.cjs, hook-runner/bundles.ts): the runner with the one
 * harness's dispatch adapter, imported statically, so the bundle holds that harness's routing and nothing else. Built
 * without zod (scripts/build.mjs aliases it to hook-runner/shims/zod-mini-lazy.ts, which loads dist/zod-mini.cjs on
 * demand) and without node:os (shims/node-os-lazy.ts).
 */
import type { Harness } from '../contracts/harness.js';
import { hookMain } from './core.js';
import type { CommandAdapter } from '../contracts/hook.js';

export const dispatchMain =
  (harness: Harness, adapter: CommandAdapter) =>
  (argv: string[], opts: { buildId?: string } = {}): Promise<number> => {
    return hookMain(argv, { [harness]: async () => adapter });
  };
