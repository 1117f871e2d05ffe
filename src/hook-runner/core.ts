/**
 * The command-hook runner behind `node dist/hook.cjs <harness> <event>`, for whichever adapter table its bundle carries
 * (dist/hook-dispatch-<harness>.cjs: one harness's dispatch events; dist/hook-events.cjs: all of them; see hook-runner/bundles.ts).
 * Reads stdin with a hard cap, parses, hands the payload to the harness's adapter, prints its answer, exits 0.
 * Every failure (oversize, bad JSON, unknown shape, a throw, the deadline) prints nothing (or the adapter's explicit
 * fail-open answer) and leaves one line in the diagnostic log: only a policy decision ever denies.
 */
import { closeSync, constants, fstatSync, openSync, read, readSync } from 'node:fs';
import { diagnose, errorText, setDiagnosticFallback } from '../io/diagnostics.js';
import { appendBounded, writeToDescriptor } from '../io/files.js';
import { withoutBom } from '../io/text.js';
import type { Env } from '../io/paths.js';
import {
  timeLeft,
  type AdapterTable,
  type CommandAdapter,
  type Delivery,
  type HookAnswer,
  type HookContext,
} from '../contracts/hook.js';

export const DEFAULT_MAX_STDIN = 1024 * 1024;
/** Half the 10 s manifest timeout of every event without a cap of its own, so our own deadline fires first. */
export const DEFAULT_DEADLINE_MS = 5000;

/**
 * `<harness>:<event>` -> the deadline of an event whose manifest timeout is shorter than 10 s (the harnesses'
 * descriptors, eventDeadlinesMs; handed in by the wiring). The harness's clock starts at the spawn, ours once the
 * bundle is loaded. TIERGATE_HOOK_DEADLINE_MS may lower a cap, never raise it (the manifests are read by
 * test/unit/reliability/session-end-busy-ledger.test.ts).
 */
export type DeadlineCaps = Readonly<Record<string, number>>;

/** The runner's deadline for one event: the environment's (or the default), capped by the event's own. */
export function deadlineFor(harness: string, event: string, env: Env, caps: DeadlineCaps = {}): number {
  const chosen = positive(env.TIERGATE_HOOK_DEADLINE_MS, DEFAULT_DEADLINE_MS);
  const cap = Object.hasOwn(caps, `${harness}:${event}`) ? caps[`${harness}:${event}`]! : Infinity;
  return Math.min(chosen, cap);
}
const DEBUG_MAX_BYTES = 16 * 1024 * 1024;

class Oversize extends Error {}

/** The bytes read so far, refusing to hold more than the cap (every stdin reader below keeps one). */
function capped(maxBytes: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add(chunk: Buffer): void {
      size += chunk.length;
      if (size > maxBytes) throw new Oversize(`stdin larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    },
    left: () => maxBytes - size,
    // One chunk (any payload under 64 KiB) is handed over as is: Buffer.concat would be one more first use of Node's.
    all: () => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)),
  };
}

/** A hook's stdin: a stream (tests, demo) or a raw file descriptor (the real process; see readFdCapped). */
export type StdinSource = NodeJS.ReadableStream | { fd: number };

/**
 * Linux: /proc/self/fd/N reopens a pipe, a file or a terminal as a new open file description, so O_NONBLOCK on it
 * leaves the harness's descriptor alone: the descriptor. A socket (Node's child stdio) cannot be reopened: Linux says
 * ENXIO, and `socket` is the answer. Anything else (no /proc: not Linux): null.
 */
function reopenNonBlocking(fd: number): number | 'socket' | null {
  // Asked first: a socket's failed reopen builds an errno exception (a process's first costs ~0.16 ms), while the Stats
  // object asking builds is one the dispatch memo's key builds anyway (a process's first ~0.1 ms, later ones ~0.01 ms;
  // bench/README.md, "Session 5").
  try {
    if (fstatSync(fd).isSocket()) return 'socket';
  } catch {
    return null;
  }
  try {
    return openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENXIO' ? 'socket' : null;
  }
}

/** Handles kept for the process's life: one collected would close the descriptor it holds. */
const socketHandles: unknown[] = [];

/**
 * A socket stdin (Claude Code's, seen on 2.1.328: a Node parent's child stdio) made non-blocking, so it is read like a
 * pipe, without the thread pool: the pool's start and the round trips through the event loop cost a hook ~0.7 ms
 * (bench/README.md, "Session 4"). Node has no fcntl; libuv sets O_NONBLOCK when a pipe handle adopts a descriptor, and
 * `net` (1.8 ms to load) is the only public way to make one, so this uses the `pipe_wrap` binding directly, which
 * `process.binding` still serves (DEP0111, a documentation-only deprecation). Guarded: with --pending-deprecation (it
 * would print a warning), without the binding or when adopting fails, the caller reads in the pool as before. O_NONBLOCK
 * belongs to this process's end of the socket pair: the harness's end is untouched.
 */
function socketNonBlocking(fd: number): boolean {
  if (
    process.execArgv.includes('--pending-deprecation') ||
    (process.env.NODE_OPTIONS ?? '').includes('--pending-deprecation') ||
    process.env.NODE_PENDING_DEPRECATION === '1'
  )
    return false;
  try {
    const binding = (
      process as unknown as {
        binding(name: string): {
          Pipe: new (type: number) => { open(fd: number): number };
          constants: { SOCKET: number };
        };
      }
    ).binding('pipe_wrap');
    const handle = new binding.Pipe(binding.constants.SOCKET);
    if (handle.open(fd) !== 0) return false;
    socketHandles.push(handle);
    return true;
  } catch {
    return false;
  }
}

/** A read of a socket stdin still waiting in libuv's thread pool: the process cannot exit normally (see hookMain). */
let pendingPoolReads = 0;
export const stdinReadPending = (): boolean => pendingPoolReads > 0;

/**
 * libuv starts its thread pool on the first job, with UV_THREADPOOL_SIZE threads (4 by default): a hook reads one
 * socket in it and nothing else, so it starts one thread (~0.3 ms less; bench/README.md, "Session 4"). The variable is
 * read when the pool starts, inside the first job's submission, and removed again at once so that no child process
 * (the events bundle spawns the price refresh) inherits it. A user's own setting is left alone.
 */
let poolSized = false;

function withOneThreadPool(submit: () => void): void {
  // Only the first submission starts the pool: later reads of a long payload need not touch the environment again.
  if (poolSized || process.env.UV_THREADPOOL_SIZE !== undefined) return submit();
  poolSized = true;
  process.env.UV_THREADPOOL_SIZE = '1';
  try {
    submit();
  } finally {
    delete process.env.UV_THREADPOOL_SIZE;
  }
}

/**
 * The fallback for a socket not made non-blocking (socketNonBlocking) and for anything /proc cannot reopen: reading it
 * through process.stdin costs ~3 ms of stream, net and tty start-up; fs.read in the thread pool ~0.6 ms. Its one flaw:
 * a read still blocked at exit keeps the process alive (the pool is joined), which hookMain handles.
 */
function readPooled(fd: number, maxBytes: number, beforeWait: () => void): Promise<Buffer> {
  beforeWait();
  return new Promise((resolve, reject) => {
    const got = capped(maxBytes);
    const next = () => {
      const buf = Buffer.allocUnsafe(64 * 1024);
      pendingPoolReads++;
      withOneThreadPool(() =>
        read(fd, buf, 0, buf.length, null, (err, n) => {
          pendingPoolReads--;
          if (err) {
            if ((err as NodeJS.ErrnoException).code === 'EAGAIN' && fd === 0)
              readStdinCapped(process.stdin, got.left(), beforeWait).then(
                (rest) => resolve(Buffer.concat([got.all(), rest])),
                reject,
              );
            else if ((err as NodeJS.ErrnoException).code === 'EOF') resolve(got.all());
            else reject(err);
            return;
          }
          if (n === 0) return resolve(got.all());
          try {
            got.add(buf.subarray(0, n));
          } catch (e) {
            return reject(e);
          }
          next();
        }),
      );
    };
    next();
  });
}

/**
 * Reads a hook's stdin, never through `process.stdin` (its getter loads Node's stream, net and tty stacks). A pipe or a
 * file is reopened non-blocking and read without any thread: what is already there synchronously (a harness writes
 * the payload and closes the pipe before Node is up), the rest polled on a timer, so the deadline always ends the
 * process. A socket is made non-blocking and read the same way (socketNonBlocking), else in the thread pool (readPooled).
 */
export function readFdCapped(fd: number, maxBytes: number, beforeWait: () => void = () => {}): Promise<Buffer> {
  const reopened = reopenNonBlocking(fd);
  // Only what Linux named a socket is adopted: O_NONBLOCK set on a terminal would outlive the hook in the user's shell.
  const own = reopened === 'socket' ? (socketNonBlocking(fd) ? fd : null) : reopened;
  if (own === null) return readPooled(fd, maxBytes, beforeWait);
  return new Promise<Buffer>((resolve, reject) => {
    const got = capped(maxBytes);
    let wait = 1;
    const finish = (err: unknown) => {
      try {
        // A socket made non-blocking is the harness's descriptor itself: it stays open.
        if (typeof reopened === 'number') closeSync(reopened);
      } catch {
        // already closed
      }
      if (err) reject(err);
      else resolve(got.all());
    };
    const drain = () => {
      try {
        for (;;) {
          const buf = Buffer.allocUnsafe(64 * 1024);
          let n: number;
          try {
            n = readSync(own, buf, 0, buf.length, null);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
            // Not all there yet: look again soon, a little later each time (the deadline bounds the whole wait).
            beforeWait();
            setTimeout(drain, wait);
            wait = Math.min(wait * 2, 25);
            return;
          }
          if (n === 0) return finish(null);
          got.add(buf.subarray(0, n));
        }
      } catch (err) {
        finish(err);
      }
    };
    drain();
  });
}

export function readStdinCapped(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
  beforeWait: () => void = () => {},
): Promise<Buffer> {
  beforeWait();
  return new Promise((resolve, reject) => {
    const got = capped(maxBytes);
    stream.on('data', (chunk: Buffer) => {
      try {
        got.add(chunk);
      } catch (err) {
        stream.removeAllListeners('data');
        (stream as NodeJS.ReadStream).destroy?.();
        reject(err);
      }
    });
    stream.on('end', () => resolve(got.all()));
    stream.on('error', reject);
  });
}

export function parsePayload(raw: Buffer): unknown {
  try {
    // toString() without arguments is UTF-8 straight to the native decoder; naming the encoding takes a JavaScript
    // lookup that a dispatch hook would compile for this one call.
    return JSON.parse(withoutBom(raw.toString()));
  } catch (err) {
    // V8 quotes a slice of the input in its message (`Unexpected token 'T', "the user's"... is not valid JSON`):
    // that slice may be prompt text, and the message goes to the diagnostic log. Keep only where it broke.
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    throw new SyntaxError(`invalid JSON (${raw.length} bytes${at ? `, error at position ${at}` : ''})`);
  }
}

/** What the harness connected stdin to (debug records only: which read path a harness's hooks take). */
function stdinKind(stdin: StdinSource): string {
  if ('on' in stdin) return 'stream';
  try {
    const st = fstatSync(stdin.fd);
    return st.isFIFO()
      ? 'pipe'
      : st.isSocket()
        ? 'socket'
        : st.isFile()
          ? 'file'
          : st.isCharacterDevice()
            ? 'tty'
            : 'other';
  } catch {
    return 'unknown';
  }
}

const positive = (v: string | undefined, dflt: number) => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : dflt;
};

export type RunOutcome = { answer: HookAnswer; failed: string | null };

/**
 * When the deadline's timer is armed. `loop` (the default): as soon as the work first lets the event loop run, whatever
 * it waits on. `first-wait`: only when the work says it will wait (HookContext.beforeWait, the stdin readers), for a
 * bundle whose every wait says so: the dispatch bundles, whose only waits are the stdin read and Claude's parent
 * transcript poll (deadline-arming.test.ts and stdin-pipe.test.ts hold each to the deadline). A process's first
 * setImmediate costs ~0.15 ms, a setTimeout twice that (bench/README.md, "Session 5"): a dispatch that never waits
 * needs neither.
 */
export type DeadlineArming = 'loop' | 'first-wait';

/** Everything but process I/O, so tests can drive it in-process. */
export async function runHookWith(
  adapters: AdapterTable,
  harness: string,
  event: string,
  stdin: StdinSource,
  env: Env,
  arming: DeadlineArming = 'loop',
  caps: DeadlineCaps = {},
): Promise<RunOutcome> {
  const startedAt = Date.now();
  const deadlineMs = deadlineFor(harness, event, env, caps);
  let adapter: CommandAdapter | undefined;
  const failOpen = (why: string, extra: Record<string, unknown> = {}): RunOutcome => {
    diagnose('error', `hook:${harness}:${event}`, why, { ms: Date.now() - startedAt, ...extra }, env);
    return { answer: adapter?.failOpen?.[event] ?? null, failed: why };
  };

  // Records deferred by the handler wait for the race below; one deferred after it was lost is written as not delivered.
  let settled: Delivery | null = null;
  const pending: ((d: Delivery) => void)[] = [];
  const runWrite = (write: (d: Delivery) => void, d: Delivery) => {
    try {
      write(d);
    } catch (err) {
      diagnose('error', `hook:${harness}:${event}`, `deferred record: ${errorText(err)}`, {}, env);
    }
  };
  const defer = (write: (d: Delivery) => void) => (settled ? runWrite(write, settled) : pending.push(write));
  const settle = (d: Delivery) => {
    if (settled) return;
    settled = d;
    for (const w of pending.splice(0)) runWrite(w, d);
  };

  const missedDeadline = (): RunOutcome => {
    const out = failOpen(`deadline of ${deadlineMs} ms passed`);
    settle('deadline');
    return out;
  };
  // The timer is armed once the work first waits on the event loop (see DeadlineArming): work that never waits is over
  // before any timer could fire. The answer-time check below holds the deadline for synchronous work.
  let timer: NodeJS.Timeout | undefined;
  let arm: NodeJS.Immediate | undefined;
  let armDeadline = () => {};
  const deadline = new Promise<RunOutcome>((resolve) => {
    armDeadline = () => {
      timer ??= setTimeout(
        () => resolve(missedDeadline()),
        Math.max(0, timeLeft({ startedAt, deadlineMs }, Date.now())),
      );
    };
  });
  if (arming === 'loop') arm = setImmediate(armDeadline);

  const work = (async (): Promise<RunOutcome> => {
    const load = Object.hasOwn(adapters, harness) ? adapters[harness] : undefined;
    if (!load) return failOpen(`no adapter for harness '${harness}'`);
    adapter = await load();
    const maxStdin = positive(env.TIERGATE_HOOK_MAX_STDIN, DEFAULT_MAX_STDIN);
    const raw = await ('on' in stdin
      ? readStdinCapped(stdin, maxStdin, armDeadline)
      : readFdCapped(stdin.fd, maxStdin, armDeadline));
    if (env.TIERGATE_HOOK_DEBUG) {
      try {
        appendBounded(
          env.TIERGATE_HOOK_DEBUG,
          `${JSON.stringify({ t: startedAt, harness, event, stdin: stdinKind(stdin), raw: raw.toString('utf8') })}\n`,
          DEBUG_MAX_BYTES,
        );
      } catch (err) {
        diagnose('warn', 'hook:debug', errorText(err), {}, env);
      }
    }
    const handler = adapter.handlers[event];
    if (!handler) return failOpen(`no handler for event '${event}'`);
    const payload = parsePayload(raw);
    const ctx: HookContext = { env, harness, event, startedAt, deadlineMs, defer, beforeWait: armDeadline };
    return { answer: await handler(payload, ctx), failed: null };
  })().catch((err: unknown) =>
    failOpen(errorText(err), {
      kind: err instanceof Oversize ? 'oversize' : err instanceof SyntaxError ? 'bad-json' : 'error',
    }),
  );

  try {
    let out = await Promise.race([work, deadline]);
    // A handler that never yielded to the event loop finishes before the timer can fire, however long it took: an
    // answer past the deadline is dropped all the same, so the deadline means what it says.
    if (out.failed === null && timeLeft({ startedAt, deadlineMs }, Date.now()) < 0) out = missedDeadline();
    // The deadline's callback settles first when it won; otherwise the handler's answer is what gets printed.
    settle(out.failed === null ? 'delivered' : 'failed');
    return out;
  } finally {
    if (arm) clearImmediate(arm);
    if (timer) clearTimeout(timer);
  }
}

/**
 * Entry: runs the hook, prints its answer and returns the exit code (the caller exits: dist/hook.cjs first saves the
 * compiled code, see loader.ts). Never lets an exception reach the harness.
 */
export async function hookMain(
  argv: string[],
  adapters: AdapterTable,
  arming: DeadlineArming = 'loop',
  caps: DeadlineCaps = {},
): Promise<number> {
  const [harness = '', event = ''] = argv;
  // A diagnosis the log cannot take (the data dir is not writable) goes to the hook's stderr: never silent.
  setDiagnosticFallback((line) => void writeToDescriptor(2, line));
  let answer: HookAnswer = null;
  try {
    answer = (await runHookWith(adapters, harness, event, { fd: 0 }, process.env, arming, caps)).answer;
  } catch (err) {
    diagnose('error', `hook:${harness}:${event}`, errorText(err));
  }
  const code = answer?.exitCode ?? 0;
  if (!answer?.stdout) {
    endIfStdinStuck(harness, event);
    return code;
  }
  let rest: Buffer | null = null;
  try {
    rest = writeToDescriptor(1, answer.stdout);
  } catch (err) {
    diagnose('error', `hook:${harness}:${event}`, `answer not written: ${errorText(err)}`);
  }
  // A non-blocking stdout that filled up (EAGAIN) takes the rest through the stream, which waits for the pipe.
  if (rest) await new Promise<void>((resolve) => process.stdout.write(rest, () => resolve()));
  endIfStdinStuck(harness, event);
  return code;
}

/**
 * The deadline passed while a socket stdin was never closed: a normal exit would wait for the blocked pool read, i.e.
 * for the harness's own timeout (seen: 4 s past a 300 ms deadline). The answer is out, the log says why, and the
 * process ends itself with SIGTERM: the harness sees a failed hook (it proceeds unchanged) now instead of later.
 */
function endIfStdinStuck(harness: string, event: string): void {
  if (!stdinReadPending()) return;
  diagnose('error', `hook:${harness}:${event}`, 'stdin was never closed: the hook ends itself with SIGTERM');
  process.kill(process.pid, 'SIGTERM');
}
