/**
 * The command hook's deadline arming (io/deadline.ts ArmLater): for a process that mostly never waits (a command hook
 * whose stdin was there at once and whose handler waited for nothing), the timer is armed only when the work is still
 * unsettled after `turns` turns of the microtask queue (0 for the hook: the loop turns only once the queue is empty
 * anyway), the loop's first turn and a window of LOOP_SPIN_MS, i.e. when it waits for the event loop longer than that;
 * otherwise none is made. On Node 20.20.2 a timer's first use compiles ~20 functions of Node's own (~1.3 M
 * instructions of a hook's ~20 M over a bare start; bench/README.md, session 15). Nothing can wait past the deadline
 * unwatched: the event loop runs nothing until the microtask queue is empty, the windows' platform timers bound the
 * loop's poll, and a loop that empties in a window arms the timer ('beforeExit'). Its own module because it needs
 * Node's process, which io/deadline.ts must not name (the Claude Code module bundles that one into a runtime without it).
 */
import { type ArmLater, withDeadline } from '../io/deadline.js';

/**
 * How long (ms, from the event loop's first turn) a loopWindow wait lets the loop run before it arms a timer.
 * A socket stdin (Claude Code's, Gemini CLI's) is read in libuv's thread pool, whose first read (threads started, the
 * read, the wake-up) is seldom done by the loop's first poll but well within this. The window is an
 * `Atomics.waitAsync` timeout: V8 hands it to Node's platform as a delayed task, a libuv timer in C++, so it compiles
 * none of Node's JavaScript (a first `setTimeout` compiles ~20 functions, ~1.3 M instructions on Node 20.20.2; the
 * `setImmediate` spin that was the window before cost ~1 M more than no wait at all: bench/README.md, sessions 15-17),
 * and the loop's poll blocks until the read is done or the window ends instead of spinning. Work still waiting after it
 * gets its timer as before.
 */
export const LOOP_SPIN_MS = 2;

/** A platform timer this short fires at the event loop's next timers phase (Node rounds a delayed task to whole ms). */
const FIRST_TURN_MS = 0.001;

type WaitAsync = (cell: Int32Array, index: number, value: number, ms: number) => { async: boolean; value: unknown };

/**
 * Windows still open, each the function that ends its own. The platform timer behind a window holds no reference on
 * the event loop (Node unrefs it): work that waits on nothing at all (a bug) would let the loop empty and the process
 * exit in the window, before any timer, without the deadline's fail-open answer and diagnostic. The process's
 * 'beforeExit' (the loop is empty) ends every open window, which arms its timer: the timer holds the process to the
 * deadline as it always did.
 */
const openWindows = new Set<(exiting?: boolean) => void>();
let exitWatched = false;
const watchExit = () => {
  exitWatched = true;
  process.on('beforeExit', () => {
    for (const end of [...openWindows]) end(true);
  });
};

/** The ArmLater of a command hook: `turns` microtask turns, the loop's first turn, then the LOOP_SPIN_MS window. */
export function loopWindow(turns = 0): ArmLater {
  return (arm, settled) => {
    // Then the loop runs: a first platform timer of ~0 ms fires at the loop's first turn (the microtask queue is empty
    // by then, so work that never waits for the loop has settled and nothing more is made); from there the loop runs
    // for LOOP_SPIN_MS, its poll taking what is done (a socket stdin's pooled read of a payload written soon, Claude
    // Code 2.1.x) and blocking, no CPU spent, until then or the window's end. Then the timer is armed with the time left
    // since the call. A runtime without Atomics.waitAsync or shared memory, or one that refuses the wait: the timer at
    // once, as before there were windows.
    const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync;
    if (typeof waitAsync !== 'function' || typeof SharedArrayBuffer !== 'function') return (arm(), () => {});
    const cell = new Int32Array(new SharedArrayBuffer(4));
    let close: ((exiting?: boolean) => void) | undefined;
    const open = (waitMs: number, then: () => void) => {
      let wait: ReturnType<WaitAsync>;
      try {
        wait = waitAsync(cell, 0, 0, waitMs);
      } catch {
        return arm();
      }
      if (!wait.async) return arm();
      const endWindow = (exiting?: boolean) => {
        if (!openWindows.delete(endWindow)) return;
        // Settled in the window: wake the waiter so nothing of it is left (a process that goes on, as tests do).
        if (settled()) Atomics.notify(cell, 0);
        else if (exiting) arm();
        else then();
      };
      openWindows.add(endWindow);
      close = endWindow;
      void Promise.resolve(wait.value).then(() => endWindow());
    };
    if (!exitWatched) watchExit();
    const window = () => open(LOOP_SPIN_MS, arm);
    // `turns` turns of the microtask queue first, when asked (the first loop turn comes after them anyway).
    const spin = (left: number): void => {
      if (settled()) return;
      if (left > 0) void Promise.resolve(left - 1).then(spin);
      else open(FIRST_TURN_MS, window);
    };
    spin(turns);
    return () => close?.();
  };
}

/** withDeadline armed only when the work waits (loopWindow): the command-hook runner's. */
export const withDeadlineOnWait = <T>(work: Promise<T>, ms: number, where: string, turns = 0): Promise<T> =>
  withDeadline(work, ms, where, undefined, loopWindow(turns));
