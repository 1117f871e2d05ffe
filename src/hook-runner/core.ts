/**
 * The command-hook runner: reads stdin with a cap and a deadline, hands the payload to the harness's adapter, prints
 * its answer. Every failure (oversize, bad JSON, a throw, the deadline) prints nothing (or the adapter's fail-open
 * answer) and leaves one line in the diagnostic log: only a policy decision ever denies.
 */
import type { CodeCacheRank } from '../io/code-cache-file.js';
import { closeSync, constants, fstatSync, openSync, readSync, readv } from 'node:fs';
import { timeLeft } from '../contracts/hook.js';
import { DeadlineExceeded } from '../io/deadline.js';
import { withDeadlineOnWait } from './loop-window.js';
import type { AdapterTable, CommandAdapter, Delivery, HookAnswer, HookContext } from '../contracts/hook.js';
import { diagnose, errorText, setDiagnosticFallback } from '../io/diagnostics.js';
import { appendBounded, writeToDescriptor } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { withoutBom } from '../io/text.js';
import { DocumentEnd } from './document-end.js';

/**
 * What a harness may send: a task brief is the model's own text and can be long, so padding one must not get a
 * dispatch past the decision unread. Only a payload past this bound fails open (a diagnostic says so).
 */
export const DEFAULT_MAX_STDIN = 16 * 1024 * 1024;
/** Half the 10 s manifest timeout of every event without a cap of its own, so our own deadline fires first. */
export const DEFAULT_DEADLINE_MS = 5000;
const DEBUG_MAX_BYTES = 16 * 1024 * 1024;

let deferredRecord = false;
let answeredDispatch = false;
/**
 * How much of the dispatch path this process ran (io/code-cache-file.ts CodeCacheRank): 0 when no handler deferred a
 * record (no dispatch decided: a hook that fires for every tool, Claude Code's PreToolUse matcher `*`, Copilot CLI's
 * preToolUse), 1 for a dispatch let through without an answer, 2 for one the hook answered (its correction, denial or
 * ask path ran too). A dispatch bundle exports it for dist/hook.cjs, which replaces a code cache made by a lesser run
 * once a fuller one comes (hook-runner/loader.ts): a cache made by a within-ceiling dispatch lacks the correction's
 * functions, which every correction then compiled again (Copilot's over-ceiling case: bench/README.md, session 13).
 */
export const codeCacheRank = (): CodeCacheRank => (answeredDispatch ? 2 : deferredRecord ? 1 : 0);

/** `<harness>:<event>` -> a shorter deadline (descriptors' eventDeadlinesMs); the environment may only lower it. */
export type DeadlineCaps = Readonly<Record<string, number>>;

export function deadlineFor(harness: string, event: string, env: Env, caps: DeadlineCaps = {}): number {
  const cap = Object.hasOwn(caps, `${harness}:${event}`) ? caps[`${harness}:${event}`]! : Infinity;
  return Math.min(positive(env.TIERGATE_HOOK_DEADLINE_MS, DEFAULT_DEADLINE_MS), cap);
}

const positive = (v: string | undefined, dflt: number) => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : dflt;
};

/** A hook's stdin: a stream (tests, demo) or a file descriptor (the real process). */
export type StdinSource = NodeJS.ReadableStream | { fd: number };

class Oversize extends Error {}

/** Stdin's bytes, and the payload they hold (parsed on demand: an event without a handler never parses it). */
type Stdin = { raw: Buffer; payload: () => unknown };

/**
 * Reads stdin up to the cap. A payload is one JSON document: as soon as the bytes so far hold a whole one
 * (DocumentEnd) that parses, reading stops instead of waiting for the harness to close stdin, which it may do some time
 * after it finished writing. Bytes that would have come after a whole document could only have made the input
 * invalid; no harness sends any.
 */
async function readCapped(chunks: AsyncIterable<string | Buffer>, maxBytes: number): Promise<Stdin> {
  const got: Buffer[] = [];
  const end = new DocumentEnd();
  let size = 0;
  let watch = true;
  for await (const chunk of chunks) {
    // Kept as it came: fdChunks reads each chunk into a buffer of its own. A copy and a concat of the one chunk a
    // payload usually is were each a Node function compiled at its first call, in every hook (bench/README.md,
    // "Session 18").
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > maxBytes) throw new Oversize(`stdin larger than ${maxBytes} bytes`);
    got.push(bytes);
    if (!watch || !end.feed(bytes)) continue;
    const raw = got.length === 1 ? bytes : Buffer.concat(got);
    try {
      const payload: unknown = JSON.parse(withoutBom(raw.toString()));
      return { raw, payload: () => payload };
    } catch {
      // Something after the document, or not JSON at all: read to the end, which parsePayload then names.
      watch = false;
    }
  }
  const raw = got.length === 1 ? got[0]! : Buffer.concat(got);
  return { raw, payload: () => parsePayload(raw) };
}

/** stdin's bytes up to `maxBytes` and the payload they hold, read as a hook reads them (`tiergate statusline` too). */
export const readStdin = (stdin: StdinSource, maxBytes: number): Promise<Stdin> =>
  readCapped('on' in stdin ? stdin : fdChunks(stdin.fd), maxBytes);

/** Reads of stdin still blocked in libuv's thread pool: the process cannot exit normally (see hookMain). */
let pendingPoolReads = 0;
/** A read of a socket stdin nobody writes to is still blocked: the process ends itself (hookMain, statusline). */
export const stdinReadPending = (): boolean => pendingPoolReads > 0;

/**
 * One read in the pool. fs.readv, not fs.read: the same read(2) at the current position, but its first use compiles a
 * far smaller function than fs.read's (argument overloads): -0.2 M instructions a socket dispatch (bench/README.md,
 * session 17).
 */
const readPooled = (fd: number, buf: Buffer) =>
  new Promise<number>((resolve, reject) => {
    pendingPoolReads++;
    readv(fd, [buf], null, (err, n) => (pendingPoolReads--, err ? reject(err) : resolve(n)));
  });

/**
 * A descriptor's bytes, never through `process.stdin` (its stream, net and tty stacks are most of a hook's start). On
 * Linux, /proc/self/fd/N reopens a pipe or a file as a new open file description that can be made non-blocking without
 * touching the harness's: read synchronously, polled on a timer while empty. A socket (Claude Code's, Gemini CLI's)
 * cannot be reopened: it is read in the thread pool (readPooled), as is anything without /proc.
 */
async function* fdChunks(fd: number): AsyncGenerator<Buffer> {
  let own: number | null = null;
  try {
    own = openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    // A socket (ENXIO), or no /proc. Cheaper than asking first: a stat of fd 0 before the reopen, so a socket throws
    // no errno exception, measured +0.3 M instructions on a socket and on a pipe alike (bench/README.md, session 17).
  }
  // Each chunk is read into a buffer of its own, handed over as it is (readCapped keeps it, never copies it).
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  try {
    for (let wait = 1, n = 1; n > 0; ) {
      try {
        n = own === null ? await readPooled(fd, buf) : readSync(own, buf, 0, buf.length, null);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EOF') return;
        if (code !== 'EAGAIN') throw err;
        // Not there yet: look again a little later each time (the deadline bounds the whole wait).
        await new Promise((resolve) => setTimeout(resolve, (wait = Math.min(wait * 2, 25))));
        continue;
      }
      if (n > 0) {
        // A large payload refills the pipe many times over: after data, look again soon, not at the longest wait.
        wait = 1;
        yield buf.subarray(0, n);
        buf = Buffer.allocUnsafe(CHUNK_BYTES);
      }
    }
  } finally {
    if (own !== null) closeSync(own);
  }
}

/** One read's most: a pipe's default capacity, so a payload a harness wrote at once is usually one chunk. */
const CHUNK_BYTES = 64 * 1024;

/** What the harness connected stdin to: debug records only, the evidence of which read path a harness's hooks take. */
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

export function parsePayload(raw: Buffer): unknown {
  try {
    return JSON.parse(withoutBom(raw.toString()));
  } catch (err) {
    // V8 quotes a slice of the input (maybe prompt text) in its message, which goes to the log: keep where it broke.
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    throw new SyntaxError(`invalid JSON (${raw.length} bytes${at ? `, error at position ${at}` : ''})`);
  }
}

/** `after`: what the handler left for after the answer (HookContext.afterAnswer), for hookMain to run. */
export type RunOutcome = { answer: HookAnswer; failed: string | null; after?: (() => void)[] };

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
  const where = `hook:${harness}:${event}`;
  let adapter: CommandAdapter | undefined;
  const failOpen = (why: string, extra: Record<string, unknown> = {}): RunOutcome => {
    diagnose('error', where, why, { ms: Date.now() - startedAt, ...extra }, env);
    return { answer: adapter?.failOpen?.[event] ?? null, failed: why };
  };

  // Records the handler defers wait for the race below; one deferred after it was lost is written as not delivered.
  let settled: Delivery | null = null;
  const pending: ((d: Delivery) => void)[] = [];
  const runWrite = (write: (d: Delivery) => void, d: Delivery) => {
    try {
      write(d);
    } catch (err) {
      diagnose('error', where, `deferred record: ${errorText(err)}`, {}, env);
    }
  };
  const defer = (write: (d: Delivery) => void) => {
    deferredRecord = true;
    return settled ? runWrite(write, settled) : pending.push(write);
  };
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
  const work = (async (): Promise<RunOutcome> => {
    const load = Object.hasOwn(adapters, harness) ? adapters[harness] : undefined;
    if (!load) return failOpen(`no adapter for harness '${harness}'`);
    adapter = await load();
    const maxStdin = positive(env.TIERGATE_HOOK_MAX_STDIN, DEFAULT_MAX_STDIN);
    const { raw, payload } = await readCapped('on' in stdin ? stdin : fdChunks(stdin.fd), maxStdin);
    if (env.TIERGATE_HOOK_DEBUG) {
      try {
        const record = JSON.stringify({ t: startedAt, harness, event, stdin: stdinKind(stdin), raw: raw.toString() });
        appendBounded(env.TIERGATE_HOOK_DEBUG, `${record}\n`, DEBUG_MAX_BYTES);
      } catch (err) {
        diagnose('warn', 'hook:debug', errorText(err), {}, env);
      }
    }
    const handler = adapter.handlers[event];
    if (!handler) return failOpen(`no handler for event '${event}'`);
    const after: (() => void)[] = [];
    const ctx: HookContext = { env, harness, event, startedAt, deadlineMs, defer, afterAnswer: (w) => after.push(w) };
    const answer = await handler(payload(), ctx);
    return after.length ? { answer, failed: null, after } : { answer, failed: null };
  })().catch((err: unknown) =>
    failOpen(errorText(err), {
      kind: err instanceof Oversize ? 'oversize' : err instanceof SyntaxError ? 'bad-json' : 'error',
    }),
  );

  // `work` settles every fault into a fail-open outcome itself: only the deadline rejects here. Its timer is armed only
  // if `work` still waits after the event loop's first turn and LOOP_SPIN_MS more (loop-window.ts: a stdin not yet
  // written, a handler's poll): most dispatches never do, a socket stdin's pooled read included.
  let out = await withDeadlineOnWait(work, deadlineMs, where).catch((err: unknown) =>
    err instanceof DeadlineExceeded ? missedDeadline() : failOpen(errorText(err)),
  );
  // A handler that never yielded to the event loop finishes before the timer can fire: an answer past the deadline
  // is dropped all the same, so the deadline means what it says.
  if (out.failed === null && timeLeft({ startedAt, deadlineMs }, Date.now()) < 0) out = missedDeadline();
  settle(out.failed === null ? 'delivered' : 'failed');
  return out;
}

/** Entry: runs the hook, prints its answer and returns the exit code. Never lets an exception reach the harness. */
export async function hookMain(argv: string[], adapters: AdapterTable, caps: DeadlineCaps = {}): Promise<number> {
  const [harness = '', event = ''] = argv;
  // A diagnosis the log cannot take (the data dir is not writable) goes to the hook's stderr: never silent.
  setDiagnosticFallback((line) => void writeToDescriptor(2, line));
  let answer: HookAnswer = null;
  try {
    const out = await runHookWith(adapters, harness, event, { fd: 0 }, process.env, caps);
    answer = out.answer;
    answeredDispatch = deferredRecord && (Boolean(answer?.stdout) || (answer?.exitCode ?? 0) !== 0);
    // A non-blocking stdout that filled up (EAGAIN) takes the rest through the stream, which waits for the pipe.
    const rest = answer?.stdout ? writeToDescriptor(1, answer.stdout) : null;
    if (rest) await new Promise<void>((resolve) => process.stdout.write(rest, () => resolve()));
    // The answer is out: what the handler left for now (HookContext.afterAnswer), only when it did not fail open.
    if (out.failed === null)
      for (const work of out.after ?? []) {
        try {
          work();
        } catch (err) {
          diagnose('error', `hook:${harness}:${event}`, `after the answer: ${errorText(err)}`);
        }
      }
  } catch (err) {
    diagnose('error', `hook:${harness}:${event}`, errorText(err));
  }
  // The deadline passed on a socket stdin never closed: a normal exit would wait for the blocked pool read (up to the
  // harness's own timeout), so the hook, its answer out, ends itself.
  if (pendingPoolReads > 0) {
    diagnose('error', `hook:${harness}:${event}`, 'stdin was never closed: the hook ends itself with SIGTERM');
    process.kill(process.pid, 'SIGTERM');
  }
  return answer?.exitCode ?? 0;
}
