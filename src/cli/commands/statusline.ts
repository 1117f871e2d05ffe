/**
 * `tiergate statusline`: the current session's subagent spend, budget left and corrections, one line, for a harness's
 * status bar (report/statusline.ts). Claude Code sends its session on stdin (session_id, cost.total_cost_usd); without
 * a payload (a terminal, or none within STDIN_WAIT_MS) the line covers today's budgets only. Built on its own as
 * dist/statusline.cjs (scripts/build.mjs) so the harness starts no more than a hook does.
 */
import { fstatSync } from 'node:fs';
import { HARNESS_IDS, type Harness } from '../../contracts/harness-ids.js';
import { isRecord } from '../../contracts/record.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { writeToDescriptor } from '../../io/files.js';
import { readStdin, stdinReadPending } from '../../hook-runner/core.js';
import { numberToDecimal } from '../../prices/decimal.js';
import { statusLine, type StatusInput } from '../../report/statusline.js';
import { parseCommandFlags, usageError } from '../args.js';

export const USAGE = `Usage: tiergate statusline [--harness H] [--session ID]
  Prints one line for a harness's status bar: this session's subagent spend, the corrections tiergate made and the
  budget with the least left. Claude Code passes the session as JSON on stdin ('tiergate install claude --statusline'
  sets it up); --session names one by hand. Reads only small files; writes nothing.
  --harness    whose session (default claude): ${HARNESS_IDS.join(', ')}`;

/** Claude Code writes the payload at once; a status bar must not wait on a stdin nobody writes to. */
const STDIN_WAIT_MS = 1_000;
const STDIN_MAX_BYTES = 256 * 1024;
const MAX_SESSION_ID = 256;

/** The session id and the harness's own session cost from a status-line payload, each when it is usable. */
export function fromPayload(payload: unknown): { sessionId: string | null; sessionTotalUsd: string | null } {
  if (!isRecord(payload)) return { sessionId: null, sessionTotalUsd: null };
  const id = payload.session_id;
  const cost = isRecord(payload.cost) ? payload.cost.total_cost_usd : undefined;
  return {
    sessionId: typeof id === 'string' && id.length > 0 && id.length <= MAX_SESSION_ID ? id : null,
    sessionTotalUsd: typeof cost === 'number' ? numberToDecimal(cost) : null,
  };
}

/** A terminal on stdin (someone typing the command): no payload. By fstat: `process.stdin` costs a hook's start-up. */
function stdinIsTerminal(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true; // no stdin at all
  }
}

async function payloadFromStdin(): Promise<unknown> {
  if (stdinIsTerminal()) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    const read = readStdin({ fd: 0 }, STDIN_MAX_BYTES).then((s) => (s.raw.length ? s.payload() : null));
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), STDIN_WAIT_MS);
    });
    return await Promise.race([read, late]);
  } catch {
    return null; // not JSON, too large, closed: the line without a session
  } finally {
    clearTimeout(timer);
  }
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('statusline', USAGE, argv, {
    harness: { type: 'string', default: 'claude' },
    session: { type: 'string' },
  });
  if (!parsed) return 2;
  const harness = HARNESS_IDS.find((h) => h === parsed.values.harness);
  if (!harness) return usageError('statusline', `unknown --harness '${parsed.values.harness}'`);
  const given = fromPayload(parsed.values.session === undefined ? await payloadFromStdin() : null);
  const input: StatusInput = {
    harness: harness as Harness,
    sessionId: parsed.values.session ?? given.sessionId,
    sessionTotalUsd: given.sessionTotalUsd,
  };
  let line: string;
  try {
    line = statusLine(process.env, input);
  } catch (err) {
    // A bug here must not put a stack in the status bar: the bare name, and the log says why.
    diagnose('error', 'statusline', errorText(err), {}, process.env);
    line = 'tiergate';
  }
  // Synchronously: a stdin never closed (below) ends the process before a stream write would have flushed.
  const rest = writeToDescriptor(1, `${line}\n`);
  if (rest) await new Promise<void>((resolve) => process.stdout.write(rest, () => resolve()));
  // A socket stdin nobody wrote to (Claude Code's, had it sent nothing) keeps a read blocked in the thread pool, and
  // a normal exit waits for it: the line is out, so the process ends itself, as a hook does (hook-runner/core.ts).
  if (stdinReadPending()) process.kill(process.pid, 'SIGTERM');
  return 0;
}
