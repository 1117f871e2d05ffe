/**
 * The command-hook runner behind `node dist/hook.cjs <harness> <event>`, for whichever adapter table its bundle carries
 * (dist/hook-dispatch.cjs: the dispatch events only; dist/hook-events.cjs: all of them; see hook-runner/bundles.ts).
 * Reads stdin with a hard cap, parses, hands the payload to the harness's adapter, prints its answer, exits 0.
 * Every failure (oversize, bad JSON, unknown shape, a throw, the deadline) prints nothing (or the adapter's explicit
 * fail-open answer) and leaves one line in the diagnostic log: only a policy decision ever denies.
 */
import { closeSync, constants, createReadStream, openSync, readSync } from 'node:fs';
import { diagnose, errorText } from '../io/diagnostics.js';
import { appendBounded, writeToDescriptor } from '../io/files.js';
import type { Env } from '../io/paths.js';
import type { AdapterTable, CommandAdapter, Delivery, HookAnswer, HookContext } from './types.js';

export const DEFAULT_MAX_STDIN = 1024 * 1024;
/** Below every manifest timeout we ship (those are >= 10 s), so our own deadline always fires first. */
export const DEFAULT_DEADLINE_MS = 5000;
const DEBUG_MAX_BYTES = 16 * 1024 * 1024;

class Oversize extends Error {}

/** A hook's stdin: a stream (tests, demo) or a raw file descriptor (the real process; see readFdCapped). */
export type StdinSource = NodeJS.ReadableStream | { fd: number };

/**
 * Linux: /proc/self/fd/N reopens a pipe or a file as a new open file description, so O_NONBLOCK on it leaves the
 * harness's descriptor alone. A socket (Node's child stdio) cannot be reopened, nor can anything without /proc: null.
 */
function reopenNonBlocking(fd: number): number | null {
  try {
    return openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
}

/**
 * Reads a hook's stdin without a blocking read on a thread: a read blocked in libuv's thread pool keeps the process
 * from exiting (the pool is joined at exit), so a harness that never closed the pipe would outlive tiergate's own
 * deadline (seen before this reader: 4 s past a 300 ms deadline). A pipe or file is read non-blocking: what is already
 * there synchronously (a harness writes the payload and closes the pipe before Node is up), the rest polled on a timer.
 * A socket is read through the stream (a libuv handle, no thread; loading it costs ~1 ms). Never `process.stdin` when
 * avoidable: its getter loads Node's stream, net and tty stacks (bench/README.md).
 */
export function readFdCapped(fd: number, maxBytes: number): Promise<Buffer> {
  const own = reopenNonBlocking(fd);
  if (own === null) {
    if (fd === 0) return readStdinCapped(process.stdin, maxBytes);
    return readStdinCapped(createReadStream('', { fd, autoClose: false }), maxBytes);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let wait = 1;
    const finish = (err: unknown, out?: Buffer) => {
      try {
        closeSync(own);
      } catch {
        // already closed
      }
      if (err) reject(err);
      else resolve(out!);
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
            setTimeout(drain, wait);
            wait = Math.min(wait * 2, 25);
            return;
          }
          if (n === 0) return finish(null, Buffer.concat(chunks));
          size += n;
          if (size > maxBytes) return finish(new Oversize(`stdin larger than ${maxBytes} bytes`));
          chunks.push(buf.subarray(0, n));
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
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stream.removeAllListeners('data');
        (stream as NodeJS.ReadStream).destroy?.();
        reject(new Oversize(`stdin larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export function parsePayload(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    // V8 quotes a slice of the input in its message (`Unexpected token 'T', "the user's"... is not valid JSON`):
    // that slice may be prompt text, and the message goes to the diagnostic log. Keep only where it broke.
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    throw new SyntaxError(`invalid JSON (${raw.length} bytes${at ? `, error at position ${at}` : ''})`);
  }
}

const positive = (v: string | undefined, dflt: number) => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : dflt;
};

export type RunOutcome = { answer: HookAnswer; failed: string | null };

/** Everything but process I/O, so tests can drive it in-process. */
export async function runHookWith(adapters: AdapterTable, harness: string, event: string, stdin: StdinSource, env: Env): Promise<RunOutcome> {
  const startedAt = Date.now();
  const deadlineMs = positive(env.TIERGATE_HOOK_DEADLINE_MS, DEFAULT_DEADLINE_MS);
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

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<RunOutcome>((resolve) => {
    timer = setTimeout(() => {
      const out = failOpen(`deadline of ${deadlineMs} ms passed`);
      settle('deadline');
      resolve(out);
    }, deadlineMs);
  });

  const work = (async (): Promise<RunOutcome> => {
    const load = Object.hasOwn(adapters, harness) ? adapters[harness] : undefined;
    if (!load) return failOpen(`no adapter for harness '${harness}'`);
    adapter = await load();
    const maxStdin = positive(env.TIERGATE_HOOK_MAX_STDIN, DEFAULT_MAX_STDIN);
    const raw = await ('on' in stdin ? readStdinCapped(stdin, maxStdin) : readFdCapped(stdin.fd, maxStdin));
    if (env.TIERGATE_HOOK_DEBUG) {
      try {
        appendBounded(env.TIERGATE_HOOK_DEBUG, `${JSON.stringify({ t: startedAt, harness, event, raw: raw.toString('utf8') })}\n`, DEBUG_MAX_BYTES);
      } catch (err) {
        diagnose('warn', 'hook:debug', errorText(err), {}, env);
      }
    }
    const handler = adapter.handlers[event];
    if (!handler) return failOpen(`no handler for event '${event}'`);
    const payload = parsePayload(raw);
    const ctx: HookContext = { env, harness, event, startedAt, deadlineMs, defer };
    return { answer: await handler(payload, ctx), failed: null };
  })().catch((err: unknown) => failOpen(errorText(err), { kind: err instanceof Oversize ? 'oversize' : err instanceof SyntaxError ? 'bad-json' : 'error' }));

  try {
    const out = await Promise.race([work, deadline]);
    // The deadline's callback settles first when it won; otherwise the handler's answer is what gets printed.
    settle(out.failed === null ? 'delivered' : 'failed');
    return out;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Entry: runs the hook, prints its answer and returns the exit code (the caller exits: dist/hook.cjs first saves the
 * compiled code, see loader.ts). Never lets an exception reach the harness.
 */
export async function hookMain(argv: string[], adapters: AdapterTable): Promise<number> {
  const [harness = '', event = ''] = argv;
  let answer: HookAnswer = null;
  try {
    answer = (await runHookWith(adapters, harness, event, { fd: 0 }, process.env)).answer;
  } catch (err) {
    diagnose('error', `hook:${harness}:${event}`, errorText(err));
  }
  const code = answer?.exitCode ?? 0;
  if (!answer?.stdout) return code;
  let rest: Buffer | null = null;
  try {
    rest = writeToDescriptor(1, answer.stdout);
  } catch (err) {
    diagnose('error', `hook:${harness}:${event}`, `answer not written: ${errorText(err)}`);
  }
  // A non-blocking stdout that filled up (EAGAIN) takes the rest through the stream, which waits for the pipe.
  if (rest) await new Promise<void>((resolve) => process.stdout.write(rest, () => resolve()));
  return code;
}
