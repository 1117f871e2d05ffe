/**
 * The observer pass as a SessionEnd hook runs it: fail-open, no output, priced with the lookup in effect now, and
 * bounded by the hook's own deadline (timeLeft: the runner's one measure of it), so that neither the drain nor
 * SQLite's wait on a busy ledger keeps the hook past its deadline, nor past the harness's manifest timeout beyond it.
 */
import { timeLeft, type HookContext } from '../contracts/hook.js';
import type { Env } from '../io/paths.js';
import { loadPricer } from '../observer/default-pricer.js';
import { runObserver } from './drain.js';

/**
 * What the pass leaves of the deadline for what follows it: closing the ledger, the handler's last step and the
 * process's exit (the drain is synchronous, so the runner's timer cannot cut it short).
 */
export const HOOK_EXIT_RESERVE_MS = 300;

export function drainLedgerFromHook(
  env: Env,
  cwd: string | null,
  hook: Pick<HookContext, 'startedAt' | 'deadlineMs'>,
): void {
  const pricer = loadPricer(env, cwd);
  runObserver(env, pricer, undefined, timeLeft(hook, Date.now()) - HOOK_EXIT_RESERVE_MS);
}
