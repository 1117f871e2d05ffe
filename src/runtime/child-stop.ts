/**
 * `budgets.action: "stop"` inside a running child (issue 33): at each of the child's own tool calls, the spend of
 * finished children (the spend summary, without reservations: this child's own estimate would count it twice) plus
 * what this child has spent so far (its transcript, read incrementally: observer/child-spend.ts) is checked against
 * the budgets. Past one, the tool call is denied with a message telling the child to stop and report what it has.
 *
 * Fail open: any fault (no transcript, an unreadable offset file, a price that does not load) lets the tool call
 * proceed with one diagnostic. Only a budget that is over denies.
 */
import type { Harness } from '../contracts/harness.js';
import type { Policy } from '../contracts/config.js';
import { loadRuntime } from '../config/runtime.js';
import { join } from 'node:path';
import { diagnose, errorText } from '../io/diagnostics.js';
import { removeNoFollow, writeFileAtomic } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';
import { readChildSpend, type LineCost } from '../observer/child-spend.js';
import { pricerFromLookup, type Pricer } from '../observer/pricing.js';
import { readSpendFile } from '../observer/spend-read.js';
import { spendStateFrom } from '../observer/spend-summary.js';
import { costOf } from '../prices/cost.js';
import { budgetNote, hasBudget, lineText, showUsd, type SpendFigure } from '../routing-engine/budget.js';

/** New transcript bytes one check reads at most; the rest is read by the next check (the offset moves on). */
export const CHILD_READ_MAX_BYTES = 16 * 1024 * 1024;
/** How long one check may read: far inside a command hook's deadline, and a tool call waits on it. */
export const CHILD_READ_MS = 250;

export type ChildToolCall = {
  harness: Harness;
  sessionId: string | null;
  /** The child's own transcript (its spend so far); null: only finished children count. */
  transcript: string | null;
  cwd: string | null;
  /** One line of that transcript -> its cost, with the pricer in effect. */
  lineCost: (pricer: Pricer) => LineCost;
  /**
   * The tool call being checked: the check re-reads (new bytes only) until the line holding it is in, for at most
   * CHILD_WAIT_MS, since a harness may run the hook before it writes that line (Claude Code 2.1.328, reference §6.1).
   */
  callId?: string | null;
};

/** How long a check waits for the line of the call it checks, then decides on what is in. */
export const CHILD_WAIT_MS = 400;
const POLL_MS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const plus = (f: SpendFigure, pico: bigint, unknown: number): SpendFigure => ({
  pico: f.pico + pico,
  unknown: f.unknown + unknown,
});

/** The child's spend so far; null while its transcript does not exist yet. */
function readOwn(env: Env, transcript: string, cost: LineCost) {
  try {
    return readChildSpend(env, transcript, cost, {
      maxBytes: CHILD_READ_MAX_BYTES,
      deadline: Date.now() + CHILD_READ_MS,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Whether the policy in effect stops running children (`budgets.action: "stop"` with a budget set, mode on). */
export const stopsChildren = (policy: Policy): boolean =>
  policy.mode === 'on' && policy.budgets.action === 'stop' && hasBudget(policy.budgets);

/**
 * The deny message when finished children's spend (the summary, without reservations) plus `own` (this running
 * child's so far) is past a budget; null otherwise. Throws on a fault (the caller fails open).
 */
export function overBudgetMessage(
  policy: Policy,
  env: Env,
  harness: Harness,
  sessionId: string | null,
  own: SpendFigure,
  now: number,
  /** `request`: the child is stopped before a model request (it cannot answer; its parent reads this). */
  at: 'tool-call' | 'request' = 'tool-call',
): string | null {
  const read = readSpendFile(env, now);
  const finished = { ...read, file: read.file ? { ...read.file, reserved: [] } : null };
  const state = spendStateFrom(finished, harness, sessionId, now);
  if (state.error !== null) throw new Error(`budgets not checked: ${state.error}`);
  const note = budgetNote(policy.budgets, {
    ...state,
    session: state.session ? plus(state.session, own.pico, own.unknown) : null,
    day: plus(state.day, own.pico, own.unknown),
    month: plus(state.month, own.pico, own.unknown),
  });
  if (note.status !== 'over') return null;
  const over = note.lines.filter((l) => l.status === 'over');
  const keys = over.map((l) => `budgets.${l.kind}`).join(' or ');
  const spent = `${over.map(lineText).join(' and ')} is spent, ${showUsd(own.pico)} of it by this subagent so far`;
  const goOn = `(To go on, the user can raise ${keys} in the tiergate config.)`;
  if (at === 'request') return `tiergate: this subagent was stopped before its next model request: ${spent}. ${goOn}`;
  return (
    `tiergate: ${spent}. Stop now: make no more tool calls, and reply with what you have found so far, saying that ` +
    `the budget stopped you. ${goOn}`
  );
}

/** The deny message for the child's next tool call, or null (go on). Never throws. */
export async function childStopMessage(call: ChildToolCall, env: Env, now = Date.now()): Promise<string | null> {
  try {
    const rt = loadRuntime(env, call.cwd);
    if (!stopsChildren(rt.policy)) return null;
    let own: SpendFigure = { pico: 0n, unknown: 0 };
    if (call.transcript) {
      const cost = call.lineCost(pricerFromLookup(rt.prices, costOf));
      const waitUntil = now + CHILD_WAIT_MS;
      for (;;) {
        const r = readOwn(env, call.transcript, cost);
        if (r) own = r;
        const late = Date.now() >= waitUntil;
        // Claude Code 2.1.328 creates a child's transcript after its first tool call's PreToolUse has started.
        if (!r && late) throw new Error(`the child's transcript did not appear within ${CHILD_WAIT_MS} ms`);
        if (r && (!call.callId || r.calls.includes(call.callId) || late)) break;
        await sleep(POLL_MS);
      }
    }
    return overBudgetMessage(rt.policy, env, call.harness, call.sessionId, own, Date.now());
  } catch (err) {
    diagnose('warn', `child-stop:${call.harness}`, `budgets not checked in the child: ${errorText(err)}`, {}, env);
    return null;
  }
}

/**
 * A file in the data dir whose presence says "the user's policy stops running children". A harness whose hook
 * manifest has no in-process point runs its every-tool-call hook behind a shell test of it (hooks-codex.json), so
 * without `stop` a tool call costs a `[ -e ]`, not a Node start. Kept by the harness's SessionStart hook.
 */
export const CHILD_STOP_MARKER = 'child-stop.on';

/** Creates or removes the marker to match the policy; a fault costs the marker only (one diagnostic). */
export function markChildStop(env: Env, policy: Policy): void {
  try {
    const file = join(paths(env).data, CHILD_STOP_MARKER);
    if (stopsChildren(policy)) writeFileAtomic(file, '', { durable: false });
    else removeNoFollow(file);
  } catch (err) {
    diagnose('warn', 'child-stop', `marker not kept: ${errorText(err)}`, {}, env);
  }
}
