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
 * How long (ms, from its first loop turn) an `armAfterTurns` wait keeps turning the event loop before it arms a timer.
 * A socket stdin (Claude Code's) is read in libuv's thread pool, whose first read (a thread started, the read, the
 * wake-up) is seldom done by the loop's first poll but well within this: spinning the loop with setImmediate (compiled
 * already) until it is done costs less than a timer's first use on Node 20.20.2 (socket cases −1 to −2.9 M
 * instructions; bench/README.md, session 16). Work still waiting after it gets its timer as before.
 */
export const LOOP_SPIN_MS = 2;

/**
 * Resolves with `work`'s value, or rejects after `ms` (at once when `ms` is not positive) with DeadlineExceeded, or
 * with what `late` makes when the caller's kind of deadline has its own error. The timer is deliberately NOT unref'd:
 * pi 0.73.1 (Node) exited mid-turn with code 0 when a stuck handler held no handle and only an unref'd timer was left.
 *
 * `armAfterTurns`: for a process that mostly never waits (a command hook whose stdin was there at once and whose
 * handler waited for nothing), the timer is armed only when `work` is still unsettled after that many turns of the
 * microtask queue and then LOOP_SPIN_MS of event-loop turns, i.e. when it waits for the event loop longer than that;
 * otherwise none is made. On Node 20.20.2 a timer's first use compiles ~20 functions of Node's own (~1.3 M instructions
 * of a hook's ~20 M over a bare start; bench/README.md, session 15). Nothing can wait past the deadline unwatched: the
 * event loop runs nothing until the microtask queue is empty, the spin keeps a turn in it until then, and the loop
 * turns after it poll without blocking (an immediate is always pending). `ms` counts from the call either way.
 */
export function withDeadline<T>(
  work: Promise<T> | T,
  ms: number,
  where: string,
  late: () => Error = () => new DeadlineExceeded(where, ms),
  armAfterTurns?: number,
): Promise<T> {
  if (!(ms > 0)) return Promise.reject(late());
  const start = Date.now();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const end = () => {
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
    };
    Promise.resolve(work).then(
      (v) => (end(), resolve(v)),
      (e: unknown) => (end(), reject(e)),
    );
    const arm = () => {
      if (!settled) timer = setTimeout(() => reject(late()), Math.max(0, ms - (Date.now() - start)));
    };
    if (armAfterTurns === undefined) return arm();
    // Then turns of the event loop: each poll phase (never blocking while an immediate is pending) takes what is done,
    // as a socket stdin's pooled read of a payload already written soon is (Claude Code 2.1.x). Then the timer is
    // armed with the time left since the call.
    const spin = (left: number): void => {
      if (settled) return;
      if (left > 0) void Promise.resolve(left - 1).then(spin);
      else {
        spinUntil = Date.now() + LOOP_SPIN_MS;
        setImmediate(turn);
      }
    };
    let spinUntil = 0;
    const turn = () => {
      if (settled) return;
      if (Date.now() < spinUntil) setImmediate(turn);
      else arm();
    };
    spin(armAfterTurns);
  });
}

/** withDeadline armed only when the work waits (`armAfterTurns`, 256 turns by default): the command-hook runner's. */
export const withDeadlineOnWait = <T>(work: Promise<T>, ms: number, where: string, turns = 256): Promise<T> =>
  withDeadline(work, ms, where, undefined, turns);

/** Waits for `work` at most `ms`, never rejects: for work whose result nobody needs (a record write, an init). */
export const waitAtMost = (work: Promise<unknown>, ms: number): Promise<void> =>
  withDeadline(work, ms, 'wait').then(
    () => undefined,
    () => undefined,
  );
