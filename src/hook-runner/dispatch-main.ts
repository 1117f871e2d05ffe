/**
 * The entry of a dispatch bundle (dist/hook-dispatch-<harness>.cjs, hook-runner/bundles.ts): the runner with the one
 * harness's dispatch adapter, imported statically, so the bundle holds that harness's routing and nothing else.
 */
import type { Harness } from '../contracts/harness.js';
import type { CommandAdapter } from '../contracts/hook.js';
import { hookMain } from './core.js';

export const dispatchMain =
  (harness: Harness, adapter: CommandAdapter) =>
  (argv: string[]): Promise<number> =>
    hookMain(argv, { [harness]: async () => adapter });
