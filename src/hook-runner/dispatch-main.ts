/**
 * The entry of a dispatch bundle (dist/hook-dispatch-<harness>.cjs, hook-runner/bundles.ts): the runner with the one
 * harness's dispatch adapter, imported statically, so the bundle holds that harness's routing and nothing else. Built
 * without zod (scripts/build.mjs aliases it to hook-runner/shims/zod-mini-lazy.ts, which loads dist/zod-mini.cjs on
 * demand) and without node:os (shims/node-os-lazy.ts).
 */
import { hookMain } from './core.js';
import type { CommandAdapter } from './types.js';

export const dispatchMain = (harness: string, adapter: CommandAdapter) => (argv: string[]): Promise<number> =>
  hookMain(argv, { [harness]: async () => adapter });
