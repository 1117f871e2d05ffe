/**
 * The parent's model at a Copilot CLI preToolUse[task]: no hook payload carries it, nor the call's id (1.0.102,
 * reference §4, seen). The session file has both on the `tool.execution_start` line of the dispatching call
 * (`data.model`, `data.toolCallId`), written before the hook runs but flushed behind it: the reference found it there
 * at preToolUse in 11 of 32 runs. So the tail is re-read for a bounded time; when the line never comes, the parent is
 * unknown and the dispatch is decided as such (allowed under the default policy, and recorded), never guessed from an
 * older turn or from COPILOT_MODEL (the launch setting, not the live model).
 */
import { existsSync } from 'node:fs';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { RefusedFile } from '../../io/read-capped.js';
import { readTailLines } from '../../observer/tail.js';
import { canonicalJson, multiplierOf, parseEventLine } from './events.js';

export type DispatchContext = {
  parentModel: string | null;
  /** The call's toolCallId: what the child's `subagent.started` names, so completions join this dispatch. */
  callId: string | null;
  /** The dispatching turn's usage line: BYOK (true), GitHub-hosted (false), or none read (null). */
  byok: boolean | null;
  /** Its `cost` (the premium-request multiplier GitHub bills), when Copilot reported one above 0. */
  parentMultiplier: number | null;
  source: 'events-tail' | null;
};

const NONE: DispatchContext = { parentModel: null, callId: null, byok: null, parentMultiplier: null, source: null };

const EXEC_START = '"tool.execution_start"';
const USAGE = '"session.usage_record"';

/**
 * One pass over the tail, newest first: the newest `tool.execution_start` of a `task` call in the dispatching agent's
 * scope (`scope`: the child's agent id, null for the root) whose arguments are the hook's, then the usage line of the
 * turn that made it.
 */
export function scanDispatch(
  path: string,
  args: Record<string, unknown>,
  scope: string | null,
  maxBytes: number,
): DispatchContext & { refused?: true } {
  const want = canonicalJson(args);
  let found: DispatchContext | null = null;
  try {
    readTailLines(path, {
      maxBytes,
      chunkBytes: 64 * 1024,
      stopWhen: (line) => {
        if (!found) {
          if (!line.includes(EXEC_START)) return false;
          const e = parseEventLine(line);
          if (!e || e.type !== 'tool.execution_start' || e.agentId !== scope || e.data.toolName !== 'task')
            return false;
          if (canonicalJson(e.data.arguments) !== want) return false;
          found = {
            parentModel: typeof e.data.model === 'string' && e.data.model !== '' ? e.data.model : null,
            callId: typeof e.data.toolCallId === 'string' && e.data.toolCallId !== '' ? e.data.toolCallId : null,
            byok: null,
            parentMultiplier: null,
            source: 'events-tail',
          };
          return false;
        }
        if (!line.includes(USAGE)) return false;
        const e = parseEventLine(line);
        if (!e || e.type !== 'session.usage_record' || e.agentId !== scope) return false;
        const u = e.data.usage;
        if (typeof u === 'object' && u !== null) {
          const usage = u as Record<string, unknown>;
          if (typeof usage.isByok === 'boolean') found.byok = usage.isByok;
          found.parentMultiplier = multiplierOf(usage);
        }
        return true;
      },
    });
  } catch (err) {
    // Missing (a session this hook's COPILOT_HOME does not hold) or unreadable: unknown. A FIFO, device or directory
    // in its place is refused at once (read-capped.ts), said in the log, and not waited for again.
    if (err instanceof RefusedFile) {
      diagnose('warn', 'copilot:parent-model', `session file ${errorText(err)}`, { path });
      return { ...(found ?? NONE), refused: true };
    }
  }
  return found ?? NONE;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export type WaitOptions = { maxBytes: number; waitMs: number; pollMs?: number };

/**
 * The dispatch's context from the first of `paths` that holds it, re-read until `waitMs` is spent. A session folder
 * that does not exist is not waited for (it will not appear for this call).
 */
export async function readDispatchContext(
  paths: readonly string[],
  args: Record<string, unknown>,
  scope: string | null,
  opts: WaitOptions,
): Promise<DispatchContext> {
  const live = paths.filter((p) => existsSync(p.slice(0, p.lastIndexOf('/'))));
  if (live.length === 0) return NONE;
  const deadline = Date.now() + opts.waitMs;
  const poll = opts.pollMs ?? 25;
  for (;;) {
    let refused = 0;
    for (const p of live) {
      const r = scanDispatch(p, args, scope, opts.maxBytes);
      if (r.source)
        return {
          parentModel: r.parentModel,
          callId: r.callId,
          byok: r.byok,
          parentMultiplier: r.parentMultiplier,
          source: r.source,
        };
      if (r.refused) refused++;
    }
    if (refused === live.length || Date.now() + poll > deadline) return NONE;
    await sleep(poll);
  }
}
