/**
 * The observer pass as a hook runs it (SessionEnd, and any completion hook that wants it): bounded well inside the
 * hook runner's deadline (src/hook-runner/run.ts, 5 s), fail-open, no output. Prices with the lookup in effect now.
 */
import type { Env } from '../io/paths.js';
import { loadPricer } from './default-pricer.js';
import { runObserver } from './drain.js';

export const HOOK_DRAIN_BUDGET_MS = 2000;

export function drainLedgerFromHook(env: Env, cwd: string | null = null): void {
  runObserver(env, loadPricer(env, cwd), undefined, HOOK_DRAIN_BUDGET_MS);
}
