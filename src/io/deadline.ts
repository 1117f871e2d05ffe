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
 * Resolves with `work`'s value, or rejects after `ms` (at once when `ms` is not positive) with DeadlineExceeded, or
 * with what `late` makes when the caller's kind of deadline has its own error. The timer is deliberately NOT unref'd:
 * pi 0.73.1 (Node) exited mid-turn with code 0 when a stuck handler held no handle and only an unref'd timer was left.
 */
export function withDeadline<T>(
  work: Promise<T> | T,
  ms: number,
  where: string,
  late: () => Error = () => new DeadlineExceeded(where, ms),
): Promise<T> {
  if (!(ms > 0)) return Promise.reject(late());
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), ms);
    Promise.resolve(work).then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/** Waits for `work` at most `ms`, never rejects: for work whose result nobody needs (a record write, an init). */
export const waitAtMost = (work: Promise<unknown>, ms: number): Promise<void> =>
  withDeadline(work, ms, 'wait').then(
    () => undefined,
    () => undefined,
  );
