/**
 * The command-hook runner behind `node dist/hook.cjs <harness> <event>`: reads stdin with a cap and a deadline, parses,
 * hands the payload to the harness's adapter, prints its answer, exits 0. Every failure (oversize, bad JSON, a throw,
 * the deadline) prints nothing (or the adapter's fail-open answer) and leaves one line in the diagnostic log: only a
 * policy decision ever denies.
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
const DEBUG_MAX_BYTES = 16 * 1024 * 1024;

/**
 * `<harness>:<event>` -> the deadline of an event whose manifest timeout is shorter than 10 s (the descriptors'
 * eventDeadlinesMs, handed in by the wiring). TIERGATE_HOOK_DEADLINE_MS may lower a cap, never raise it.
 */
export type DeadlineCaps = Readonly<Record<string, number>>;

export function deadlineFor(harness: string, event: string, env: Env, caps: DeadlineCaps = {}): number {
  const chosen = positive(env.TIERGATE_HOOK_DEADLINE_MS, DEFAULT_DEADLINE_MS);
  const cap = Object.hasOwn(caps, `${harness}:${event}`) ? caps[`${harness}:${event}`]! : Infinity;
  return Math.min(chosen, cap);
}

const positive = (v: string | undefined, dflt: number) => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : dflt;
};

class Oversize extends Error {}

/** The bytes read so far, refusing to hold more than the cap. */
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
    all: () => Buffer.concat(chunks),
  };
}

/** A hook's stdin: a stream (tests, demo) or a file descriptor (the real process; see readFdCapped). */
export type StdinSource = NodeJS.ReadableStream | { fd: number };

/** A read of stdin still blocked in libuv's thread pool: the process cannot exit normally (see endIfStdinStuck). */
let pendingPoolReads = 0;

/** fs.read in the thread pool, for a socket stdin (Claude Code's) and whatever /proc cannot reopen. */
function readPooled(fd: number, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const got = capped(maxBytes);
    const next = () => {
      const buf = Buffer.allocUnsafe(64 * 1024);
      pendingPoolReads++;
      read(fd, buf, 0, buf.length, null, (err, n) => {
        pendingPoolReads--;
        const code = (err as NodeJS.ErrnoException | null)?.code;
        // A descriptor someone made non-blocking: Node's stream waits for it.
        if (code === 'EAGAIN' && fd === 0)
          return void readStdinCapped(process.stdin, got.left()).then(
            (rest) => resolve(Buffer.concat([got.all(), rest])),
            reject,
          );
        if (code === 'EOF' || (!err && n === 0)) return resolve(got.all());
        if (err) return reject(err);
        try {
          got.add(buf.subarray(0, n));
        } catch (e) {
          return reject(e);
        }
        next();
      });
    };
    next();
  });
}

/**
 * Reads a hook's stdin, never through `process.stdin` (its stream, net and tty stacks are most of a hook's start). On
 * Linux, /proc/self/fd/N reopens a pipe or a file as a new open file description, so it can be read non-blocking (the
 * harness's descriptor keeps its flags): what is there at once synchronously, the rest polled on a timer. A socket
 * cannot be reopened (ENXIO): it is read in the thread pool (readPooled), as is anything without /proc.
 */
export function readFdCapped(fd: number, maxBytes: number): Promise<Buffer> {
  let own: number;
  try {
    own = openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return readPooled(fd, maxBytes);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const got = capped(maxBytes);
    let wait = 1;
    const finish = (err: unknown) => {
      try {
        closeSync(own);
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
            // Not all there yet: look again a little later each time (the deadline bounds the whole wait).
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

export function readStdinCapped(stream: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer> {
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
    return JSON.parse(withoutBom(raw.toString()));
  } catch (err) {
    // V8 quotes a slice of the input (maybe prompt text) in its message, and the message goes to the log: keep only
    // where it broke.
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    throw new SyntaxError(`invalid JSON (${raw.length} bytes${at ? `, error at position ${at}` : ''})`);
  }
}

/** What the harness connected stdin to (debug records only). */
function stdinKind(stdin: StdinSource): string {
  if ('on' in stdin) return 'stream';
  try {
    const st = fstatSync(stdin.fd);
    if (st.isFIFO()) return 'pipe';
    if (st.isSocket()) return 'socket';
    return st.isFile() ? 'file' : st.isCharacterDevice() ? 'tty' : 'other';
  } catch {
    return 'unknown';
  }
}

export type RunOutcome = { answer: HookAnswer; failed: string | null };

/** Everything but process I/O, so tests can drive it in-process. */
export async function runHookWith(
  adapters: AdapterTable,
  harness: string,
  event: string,
  stdin: StdinSource,
  env: Env,
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
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<RunOutcome>((resolve) => {
    timer = setTimeout(() => resolve(missedDeadline()), deadlineMs);
  });

  const work = (async (): Promise<RunOutcome> => {
    const load = Object.hasOwn(adapters, harness) ? adapters[harness] : undefined;
    if (!load) return failOpen(`no adapter for harness '${harness}'`);
    adapter = await load();
    const maxStdin = positive(env.TIERGATE_HOOK_MAX_STDIN, DEFAULT_MAX_STDIN);
    const raw = await ('on' in stdin ? readStdinCapped(stdin, maxStdin) : readFdCapped(stdin.fd, maxStdin));
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
    const ctx: HookContext = { env, harness, event, startedAt, deadlineMs, defer };
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
    settle(out.failed === null ? 'delivered' : 'failed');
    return out;
  } finally {
    clearTimeout(timer);
  }
}

/** Entry: runs the hook, prints its answer and returns the exit code. Never lets an exception reach the harness. */
export async function hookMain(argv: string[], adapters: AdapterTable, caps: DeadlineCaps = {}): Promise<number> {
  const [harness = '', event = ''] = argv;
  // A diagnosis the log cannot take (the data dir is not writable) goes to the hook's stderr: never silent.
  setDiagnosticFallback((line) => void writeToDescriptor(2, line));
  let answer: HookAnswer = null;
  try {
    answer = (await runHookWith(adapters, harness, event, { fd: 0 }, process.env, caps)).answer;
  } catch (err) {
    diagnose('error', `hook:${harness}:${event}`, errorText(err));
  }
  if (answer?.stdout) {
    let rest: Buffer | null = null;
    try {
      rest = writeToDescriptor(1, answer.stdout);
    } catch (err) {
      diagnose('error', `hook:${harness}:${event}`, `answer not written: ${errorText(err)}`);
    }
    // A non-blocking stdout that filled up (EAGAIN) takes the rest through the stream, which waits for the pipe.
    if (rest) await new Promise<void>((resolve) => process.stdout.write(rest, () => resolve()));
  }
  endIfStdinStuck(harness, event);
  return answer?.exitCode ?? 0;
}

/**
 * The deadline passed while a socket stdin was never closed: a normal exit would wait for the blocked pool read, i.e.
 * for the harness's own timeout. The answer is out and the log says why: the process ends itself with SIGTERM.
 */
function endIfStdinStuck(harness: string, event: string): void {
  if (pendingPoolReads === 0) return;
  diagnose('error', `hook:${harness}:${event}`, 'stdin was never closed: the hook ends itself with SIGTERM');
  process.kill(process.pid, 'SIGTERM');
}
