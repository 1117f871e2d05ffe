/**
 * A dispatch under a budget: the spend is read, the budgets decide, and the child's expected cost is reserved, all
 * under the one lock every writer of the summary takes (spend-lock.ts), so parallel dispatches see each other's
 * reservations: 16 children dispatched at once with one child's worth of budget left run one or two, not sixteen.
 * The completion settles the reservation (countCompletion replaces it with the real cost); one never settled expires
 * after RESERVATION_TTL_MS.
 *
 * The reservation is one line appended to the held file (spend-held.ts), not a rewrite of the summary. A dispatch that
 * finds the lock free takes it and reads once, under it. One that finds it taken reads without it first: what that read
 * already refuses is refused there (nothing to reserve; an ask is no refusal: mayNotRun); otherwise the lock is waited for briefly
 * (DISPATCH_LOCK_WAIT_MS). Not had by then: the budgets are checked against the spend as read without it and no
 * reservation is made, with a diagnostic (the budget part fails open; the decision is made).
 * Only called when a budget is set: a dispatch without one reads and writes nothing. No SQLite, no pricing here.
 */
import type { Decision } from '../contracts/decision.js';
import type { DispatchObservation } from '../contracts/observation.js';
import type { Policy } from '../contracts/config.js';
import { appendLine } from '../io/files.js';
import type { Env } from '../io/paths.js';
import type { SpendState } from '../routing-engine/budget.js';
import { writeFold } from './spend-fold.js';
import { tryWithSpendLock } from './spend-lock.js';
import { heldGen, heldLineText, mustFold } from './spend-held.js';
import { noteSpendPath } from './spend-warm.js';
import { heldPath, readSpendWith, type SpendRead } from './spend-read.js';
import {
  addReservation,
  askBasis,
  configuredReserve,
  countStarted,
  emptySpend,
  estimateCost,
  RESERVATION_TTL_MS,
  sessionKey,
  spendStateFrom,
  type ReadSpend,
  type Reservation,
  type SpendFile,
} from './spend-summary.js';

/**
 * Whether a decision lets no child run, so nothing is reserved: a denial no one can overturn. A denial with an ask
 * attached (budgets.action or onOverCeiling "ask", where someone can answer the prompt) may run: if the person approves,
 * the child runs as asked, so it reserves like an allowed child, at the requested model's estimate (runsOn is the
 * requested model for an ask: effective-model.ts); otherwise concurrent approved asks would each see the budget without
 * the others and overshoot it. tiergate never sees a refusal (Claude Code 2.1.332 sends no hook when the person answers
 * No), so a refused ask's reservation holds until it expires (RESERVATION_TTL_MS): the budget errs on the safe side.
 */
export const mayNotRun = (d: Pick<Decision, 'action' | 'ask'>): boolean => d.action === 'deny' && !d.ask;

/**
 * How long a dispatch waits for the lock: each holder keeps it about a millisecond (read, decide, write), so this lets
 * dozens of dispatches at once through in turn while staying far inside a hook's deadline.
 */
export const DISPATCH_LOCK_WAIT_MS = 1_500;

/** The reservation for a child that will run on `runsOn`. */
export function reservationFor(
  f: SpendFile,
  obs: DispatchObservation,
  budgets: Policy['budgets'],
  runsOn: string | null,
  now: number,
): Reservation {
  const session = obs.sessionId ? sessionKey(obs.harness, obs.sessionId) : null;
  const reserve = configuredReserve(budgets);
  const pico = estimateCost(f, { session, agent: obs.subagentType, model: runsOn, reserve });
  const base = { c: obs.callId, s: session, at: now, until: now + RESERVATION_TTL_MS, h: obs.harness };
  // Nothing to go by: held as an unpriced child (a warning), never as $0 proven.
  return pico === null ? { ...base, pico: '0', unknown: 1 } : { ...base, pico: pico.toString() };
}

/**
 * The budgets' and limits' input from a read: the spend, this child's estimate, and this session's children counted
 * (`fanout`) only where `countsChildren` (the harness reports a child's end: descriptors' childEndEvent).
 */
function stateOf(
  read: ReadSpend,
  obs: DispatchObservation,
  budgets: Policy['budgets'],
  now: number,
  countsChildren: boolean,
): SpendState {
  const state = spendStateFrom(read, obs.harness, obs.sessionId, now, obs.sessionCostUsd ?? null);
  if (!countsChildren) delete state.fanout;
  if (read.error !== null) return state;
  const f = read.file ?? emptySpend(now);
  const session = obs.sessionId ? sessionKey(obs.harness, obs.sessionId) : null;
  const reserve = configuredReserve(budgets);
  const model = obs.requestedModel ?? obs.agentModel ?? obs.parentModel;
  state.estimate = estimateCost(f, { session, agent: obs.subagentType, model, reserve });
  if (obs.canAsk === true) state.askBasis = askBasis(f, { session, agent: obs.subagentType });
  return state;
}

/**
 * The spend as read (no lock, nothing written) with what an ask's estimate is drawn from, for a dispatch under a policy
 * that asks and sets no budget or limit: the budgets are not checked (none is set), the message states the estimate.
 */
export function askState(env: Env, obs: DispatchObservation): SpendState {
  noteSpendPath();
  const session = obs.sessionId ? sessionKey(obs.harness, obs.sessionId) : null;
  const read = readSpendWith(env, obs.at, null, { session });
  const state = spendStateFrom(read, obs.harness, obs.sessionId, obs.at, null);
  state.askBasis = read.file ? askBasis(read.file, { session, agent: obs.subagentType }) : null;
  return state;
}

/**
 * Whether two reads give the same spend: the same parsed summary (readSummaryOnly hands back the earlier parse only for
 * the very same bytes) or none in both, the same held lines (readHeld likewise), no error, and no journal entry in
 * either (entries are folded into a new copy).
 */
const sameSpend = (a: SpendRead, b: SpendRead): boolean =>
  a.error === null &&
  b.error === null &&
  a.summary.file === b.summary.file &&
  a.summary.absent === b.summary.absent &&
  a.held === b.held &&
  a.journal.names.length === 0 &&
  b.journal.names.length === 0;

/**
 * Under the lock: this dispatch's reservation held, and whatever was read taken into the summary when a fold is due
 * (spend-held.ts). The common case is one appended line; a fold writes the summary (the held lines, the journal and this
 * reservation in it, the next generation), then empties the held file, then drops the journal entries it took.
 */
function hold(env: Env, read: SpendRead, r: Reservation | null, started: string | null, now: number): void {
  const gen = heldGen(read.summary.file);
  if (r && read.journal.names.length === 0 && !mustFold(read.held)) {
    appendLine(heldPath(env), heldLineText(r, gen, started !== null));
    return;
  }
  let file = read.file ?? emptySpend(now, env.TZ ?? null);
  if (r) file = addReservation(file, r, now);
  if (r && started !== null) file = countStarted(file, started, now);
  writeFold(env, file, read.summary.file, read.held, read.journal.names);
}

/**
 * `decideWith(state)` under the lock, reserving the child's expected cost when the decision may let it run (an ask may:
 * mayNotRun; the reservation
 * is also what counts it as running for the fan-out limits, and its session's started count goes up by one). A spend that
 * cannot be read (state.error) reserves nothing and writes nothing: the budgets and limits fail open for this dispatch.
 */
export function decideReserving(
  env: Env,
  obs: DispatchObservation,
  budgets: Policy['budgets'],
  decideWith: (state: SpendState) => Decision,
  runsOn: (d: Decision) => string | null,
  countsChildren = false,
): Decision {
  noteSpendPath();
  const now = obs.at;
  // This session's view of the summary (spend-digest.ts): the digest and this session's line, not the whole file.
  const view = { session: obs.sessionId ? sessionKey(obs.harness, obs.sessionId) : null };
  const note = (d: Decision, why: string): Decision => ({ ...d, diagnostics: [...d.diagnostics, why] });
  let decided: Decision | null = null;
  let fault: string | null = null;
  let failed: { err: unknown } | null = null;
  /** Under the lock: read (`prev`: a lock-free read and its decision, reused if nothing changed), decide, hold. */
  const locked = (prev: { read: SpendRead; first: Decision } | null) => (): void => {
    // What a writer changed since `prev` counts; the same bytes are not parsed twice.
    const read = readSpendWith(env, now, prev?.read ?? null, view);
    try {
      // Nothing changed since the lock-free read: the same state, so the same decision (decide is pure: no clock, no
      // file, no randomness), taken as made. Anything changed, or a journal to fold: decided again from this read.
      decided =
        prev && sameSpend(read, prev.read) ? prev.first : decideWith(stateOf(read, obs, budgets, now, countsChildren));
    } catch (err) {
      failed = { err }; // the decision's own fault: the caller's, not the lock's
      return;
    }
    if (read.error !== null) return;
    const runs = !mayNotRun(decided);
    if (!runs && read.journal.names.length === 0) return;
    const file = read.file ?? emptySpend(now, env.TZ ?? null);
    const r = runs ? reservationFor(file, obs, budgets, runsOn(decided), now) : null;
    const started = runs && countsChildren && obs.sessionId ? sessionKey(obs.harness, obs.sessionId) : null;
    hold(env, read, r, started, now);
  };
  try {
    // The lock free at once (no other dispatch or writer at work): one read, under it. Taken by another: first without
    // it, since a refusal needs no reservation and the spend it read only grows until a child finishes, so it stands;
    // once a budget is spent, parallel dispatches are refused without queueing for the lock.
    if (!tryWithSpendLock(env, 0, locked(null)).held) {
      const unlocked = readSpendWith(env, now, null, view);
      const first = decideWith(stateOf(unlocked, obs, budgets, now, countsChildren));
      if (mayNotRun(first)) return first;
      if (!tryWithSpendLock(env, DISPATCH_LOCK_WAIT_MS, locked({ read: unlocked, first })).held)
        fault = `the spend lock was not free within ${DISPATCH_LOCK_WAIT_MS} ms; checked against the spend as read, this child's cost not reserved`;
    }
  } catch (err) {
    // A lock or write that fails (a read-only data dir) costs the reservation, never the decision made.
    fault = `this child's cost not reserved: ${(err as Error).message}`;
  }
  if (failed) throw (failed as { err: unknown }).err;
  if (decided) return fault ? note(decided, `budget: ${fault}`) : decided;
  return note(
    decideWith(stateOf(readSpendWith(env, now, null, view), obs, budgets, now, countsChildren)),
    `budget: ${fault}`,
  );
}
