/**
 * The one deadline every fail-open path is cut with: the command-hook runner's race against its deadline, the
 * in-process callbacks of OpenCode and pi (adapters/in-process/deadline.ts), and the Claude Code module's `$` calls and
 * record writes. No imports: the Claude Code module bundles it into a runtime without Node.
 */

export class DeadlineExceeded extends Error {
  constructor(where: string, ms: number) {
    super(`${where}: no answer within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * When a deadline's timer is armed, if not at once: a strategy that calls `arm` later, only if the work is still
 * unsettled then (`settled()` says), and returns what ends its own wait once the work settles. The command hook's is
 * hook-runner/loop-window.ts (it needs Node's process; this module runs where there is none, the Claude Code module).
 */
export type ArmLater = (arm: () => void, settled: () => boolean) => () => void;

/**
 * Resolves with `work`'s value, or rejects after `ms` (at once when `ms` is not positive) with DeadlineExceeded, or
 * with what `late` makes when the caller's kind of deadline has its own error. The timer is deliberately NOT unref'd:
 * pi 0.73.1 (Node) exited mid-turn with code 0 when a stuck handler held no handle and only an unref'd timer was left.
 *
 * `armLater`: the timer armed later, by that strategy, and only if the work still waits (see ArmLater). `ms` counts
 * from the call either way.
 */
export function withDeadline<T>(
  work: Promise<T> | T,
  ms: number,
  where: string,
  late: () => Error = () => new DeadlineExceeded(where, ms),
  armLater?: ArmLater,
): Promise<T> {
  if (!(ms > 0)) return Promise.reject(late());
  const start = Date.now();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let closeWindow: (() => void) | undefined;
    const end = () => {
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      closeWindow?.();
    };
    Promise.resolve(work).then(
      (v) => (end(), resolve(v)),
      (e: unknown) => (end(), reject(e)),
    );
    const arm = () => {
      if (!settled) timer = setTimeout(() => reject(late()), Math.max(0, ms - (Date.now() - start)));
    };
    if (armLater === undefined) return arm();
    closeWindow = armLater(arm, () => settled);
  });
}

/** Waits for `work` at most `ms`, never rejects: for work whose result nobody needs (a record write, an init). */
export const waitAtMost = (work: Promise<unknown>, ms: number): Promise<void> =>
  withDeadline(work, ms, 'wait').then(
    () => undefined,
    () => undefined,
  );
