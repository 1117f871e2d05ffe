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
import type { SpoolRecord } from '../contracts/spool.js';
import { loadRuntime } from '../config/runtime.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { createExclusive, removeNoFollow, writeFileAtomic } from '../io/files.js';
import { paths, type Env, joinPath } from '../io/paths.js';
import { childStoppedMarkerPath, readChildSpend, type LineCost } from '../observer/child-spend.js';
import { pricerFromLookup, type Pricer } from '../observer/pricing.js';
import { appendSpool } from '../observer/spool.js';
import { readSpendFile } from '../observer/spend-read.js';
import { childEstimate, sessionKey, spendStateFrom, type SpendFile } from '../observer/spend-summary.js';
import { costOf } from '../prices/cost.js';
import { budgetNote, hasBudget, lineText, showUsd, type SpendFigure } from '../routing-engine/budget.js';

/** New transcript bytes one check reads at most; the rest is read by the next check (the offset moves on). */
export const CHILD_READ_MAX_BYTES = 16 * 1024 * 1024;
/** How long one check may read: far inside a command hook's deadline, and a tool call waits on it. */
export const CHILD_READ_MS = 250;

/** The child a check is about: its harness, the session whose budgets count it, its agent type (for its estimate). */
export type StopSubject = {
  harness: Harness;
  sessionId: string | null;
  /** The child's agent type (subagent_type, agent name); null where the harness does not tell the child's hook. */
  agent: string | null;
};

export type ChildToolCall = StopSubject & {
  /** The child's own id (Claude Code's and Codex's agent_id): a stop is recorded once per child; null: not recorded. */
  childId: string | null;
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
 * What a subagent like this one costs in all, as a stop message states it (issue 33 item 4): the median of the
 * finished children of its agent type, else of its session's; always called an estimate.
 */
export function stopEstimateText(file: SpendFile | null, who: StopSubject): string {
  const session = who.sessionId ? sessionKey(who.harness, who.sessionId) : null;
  const est = childEstimate(file, { agent: who.agent, session });
  if (est === null) return 'No estimate of what a subagent like this one costs yet (no finished subagent to go by).';
  const from =
    est.from === 'agent'
      ? `the median of the finished ${who.agent} subagents`
      : "the median of this session's finished subagents";
  return `A subagent like this one costs about ${showUsd(est.pico)} in all (${from}: an estimate).`;
}

/**
 * The deny message when finished children's spend (the summary, without reservations) plus `own` (this running
 * child's so far) is past a budget; null otherwise. It states the money: each budget passed with its spend, this
 * child's share of it, and what a child like it costs (an estimate). Throws on a fault (the caller fails open).
 */
export function overBudgetMessage(
  policy: Policy,
  env: Env,
  who: StopSubject,
  own: SpendFigure,
  now: number,
  /** `request`: the child is stopped before a model request (it cannot answer; its parent reads this). */
  at: 'tool-call' | 'request' = 'tool-call',
): string | null {
  // This session's view of the summary (its digest: observer/spend-digest.ts), not the whole file parsed.
  const read = readSpendFile(env, now, { session: who.sessionId ? sessionKey(who.harness, who.sessionId) : null });
  const finished = { ...read, file: read.file ? { ...read.file, reserved: [] } : null };
  const state = spendStateFrom(finished, who.harness, who.sessionId, now);
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
  const estimate = stopEstimateText(read.file, who);
  const goOn = `(To go on, the user can raise ${keys} in the tiergate config.)`;
  if (at === 'request')
    return `tiergate: this subagent was stopped before its next model request: ${spent}. ${estimate} ${goOn}`;
  return (
    `tiergate: ${spent}. Stop now: make no more tool calls, and reply with what you have found so far, saying that ` +
    `the budget stopped you. ${estimate} ${goOn}`
  );
}

type DispatchRecord = Extract<SpoolRecord, { type: 'dispatch' }>;

/**
 * The ledger line of a stopped child (decision kind `stopped`, reason child-stopped): a refusal, never joined to a
 * completion (its call id is the child's own id, prefixed, which no dispatch carries), so the report counts it apart
 * from the dispatches and runs. The ledger keeps one per child: the same child recorded twice has one key.
 */
export function stoppedRecord(who: StopSubject, childId: string, cwd: string | null, at: number): DispatchRecord {
  return {
    type: 'dispatch',
    observation: {
      kind: 'dispatch',
      harness: who.harness,
      sessionId: who.sessionId,
      callId: `stopped:${childId}`,
      parentModel: null,
      parentModelSource: null,
      requestedModel: null,
      requestedAgent: who.agent,
      requestedTier: null,
      agentModel: null,
      subagentType: who.agent,
      capability: { canRewrite: false, rewriteField: null, rewriteKind: 'model', legalValues: null, canDeny: true },
      toolInput: {},
      cwd,
      escalationFrom: null,
      at,
    },
    decision: {
      action: 'deny',
      reason: 'child-stopped',
      tier: null,
      effectiveModel: null,
      catalogVersion: null,
      detail: {
        kind: 'stopped',
        without: null,
        withoutFrom: 'unknown',
        withoutSource: null,
        to: null,
        toModel: null,
        withoutRates: null,
        chosenRates: null,
        budget: 'over',
      },
    },
  };
}

/**
 * Spools the stop of `childId` the first time it is stopped. `first` says whether this is that time: by default a
 * marker created exclusively in the data dir (one failed open per later denied call, no file scan); an in-process
 * host passes its own memory. A fault costs the record only, with a diagnostic: the child is stopped all the same.
 */
export function recordStopOnce(
  env: Env,
  who: StopSubject,
  childId: string,
  cwd: string | null,
  at: number,
  first: () => boolean = () => createExclusive(childStoppedMarkerPath(env, who.harness, childId), ''),
): void {
  try {
    if (!first()) return;
    appendSpool(stoppedRecord(who, childId, cwd, at), env);
  } catch (err) {
    diagnose('warn', `child-stop:${who.harness}`, `stopped child not recorded: ${errorText(err)}`, {}, env);
  }
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
    const message = overBudgetMessage(rt.policy, env, call, own, Date.now());
    if (message !== null && call.childId) recordStopOnce(env, call, call.childId, call.cwd, Date.now());
    return message;
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
    const file = joinPath(paths(env).data, CHILD_STOP_MARKER);
    if (stopsChildren(policy)) writeFileAtomic(file, '', { durable: false });
    else removeNoFollow(file);
  } catch (err) {
    diagnose('warn', 'child-stop', `marker not kept: ${errorText(err)}`, {}, env);
  }
}
