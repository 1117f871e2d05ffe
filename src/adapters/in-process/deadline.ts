/**
 * Deadlines for in-process callbacks. Neither OpenCode 1.18.33 nor pi 0.73.1 times out a plugin callback (a 240 s hang
 * stalled both, reference opencode.md §7, pi.md §7), so tiergate bounds its own work and falls back to a default.
 */
import { diagnose, errorText } from '../../io/diagnostics.js';
import type { Env } from '../../io/paths.js';

export const DISPATCH_DEADLINE_MS = 2_000;
export const COMPLETION_DEADLINE_MS = 5_000;

export class DeadlineExceeded extends Error {
  constructor(where: string, ms: number) {
    super(`${where}: no answer within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * Resolves with `work`'s value, or rejects with DeadlineExceeded after `ms`. The timer is deliberately NOT unref'd:
 * pi 0.73.1 (Node) exited mid-turn with code 0 when a stuck handler held no handle and only an unref'd timer was left.
 */
export function withDeadline<T>(work: Promise<T> | T, ms: number, where: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineExceeded(where, ms)), ms);
    Promise.resolve(work).then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

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
