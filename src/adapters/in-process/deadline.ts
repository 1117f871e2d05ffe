/**
 * Deadlines for in-process callbacks. Neither OpenCode 1.18.33 nor pi 0.73.1 times out a plugin callback (a 240 s hang
 * stalled both, reference opencode.md §7, pi.md §7), so tiergate bounds its own work (io/deadline.ts, the one deadline) and falls back to a default.
 */
import { diagnose, errorText } from '../../io/diagnostics.js';
import type { Env } from '../../io/paths.js';
import { DeadlineExceeded, withDeadline } from '../../io/deadline.js';

export const DISPATCH_DEADLINE_MS = 2_000;
export const COMPLETION_DEADLINE_MS = 5_000;

/**
 * Runs a callback body under a deadline and swallows every failure into one diagnostic line: the fail-open wrapper
 * every in-process callback uses. Returns `fallback` on error or timeout.
 */
export async function failOpen<T>(
  where: string,
  ms: number,
  fallback: T,
  body: () => Promise<T> | T,
  env: Env = process.env,
): Promise<T> {
  try {
    return await withDeadline(Promise.resolve().then(body), ms, where);
  } catch (err) {
    diagnose(err instanceof DeadlineExceeded ? 'warn' : 'error', where, errorText(err), {}, env);
    return fallback;
  }
}

/** Env override for tests and slow machines: TIERGATE_CALLBACK_DEADLINE_MS. */
export function deadlineFromEnv(env: Record<string, string | undefined>, fallback: number): number {
  const n = Number(env.TIERGATE_CALLBACK_DEADLINE_MS);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}
