/**
 * Fan-out limits at dispatch (issue 33): at most `limits.concurrentSubagents` children of one harness session running at
 * once, and `limits.subagentsPerSession` started in all. Pure: the decision the ceiling and budgets took, the policy
 * and the session's counts in (the caller reads them under the spend lock, observer/spend-reserve.ts); the decision
 * out. Applied after the budgets: a limit only ever turns a run into a refusal, never a refusal into a run.
 *
 * Counted only where the harness tells tiergate when a child ends (descriptors' childEndEvent): elsewhere a running
 * child is never released, and a limit would refuse every dispatch after the first N.
 */
import type { Decision } from '../contracts/decision.js';
import type { DispatchObservation } from '../contracts/observation.js';
import type { Policy } from '../contracts/config.js';
import { budgetLines, estimateText, lineText, showUsd, type SpendState } from './budget.js';
import { raisedAsk } from './ask.js';

type Limits = Policy['limits'];

export const hasLimits = (l: Limits | undefined): boolean =>
  !!l && (l.concurrentSubagents !== undefined || l.subagentsPerSession !== undefined);

/**
 * The money a limit's message states: "$0.0123 spent on this session's subagents so far; the session budget of $1
 * ($0.0123 spent). This child is estimated at $0.0040 (…)."
 */
export function moneyText(policy: Pick<Policy, 'budgets'>, state: SpendState): string {
  const parts: string[] = [];
  if (state.session)
    parts.push(
      `${showUsd(state.session.pico)} spent on this session's subagents so far (running ones at their estimate)`,
    );
  const lines = budgetLines(policy.budgets, state).filter((l) => l.status !== 'not-reported');
  parts.push(lines.length ? lines.map(lineText).join(', ') : 'no budget set');
  return [`${parts.join('; ')}.`, estimateText(state)].filter(Boolean).join(' ');
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * The decision with the limits applied, where the caller counted this session's children (`state.fanout`; absent where
 * the harness reports no child's end, or the count could not be read). A refusal already taken stands as it is (a
 * denial an ask policy would ask about is not one yet).
 */
export function applyLimits(
  decision: Decision,
  obs: DispatchObservation,
  policy: Pick<Policy, 'limits' | 'budgets' | 'onOverCeiling'>,
  state: SpendState,
): Decision {
  const limits = policy.limits;
  // A denial the policy asks about is no refusal yet: approved, the child runs (and reserves, spend-reserve.ts), so it
  // meets the limits like a child allowed; at a limit it is the limit's denial, which is never asked about.
  const asked = raisedAsk(decision, obs, policy) !== null;
  const refused = decision.action === 'deny' && !asked;
  if (!hasLimits(limits) || refused || !obs.sessionId) return decision;
  // The count could not be read: the limits fail open for this dispatch, never silently.
  if (state.error !== null)
    return { ...decision, diagnostics: [...decision.diagnostics, `limits not checked: ${state.error}`] };
  if (!state.fanout) return decision;
  const { running, started } = state.fanout;
  const deny = (summary: string, why: string): Decision => ({
    action: 'deny',
    reason: 'limit-denied',
    summary,
    comparison: decision.comparison,
    tier: null,
    diagnostics: decision.diagnostics,
    ...(decision.budget ? { budget: decision.budget } : {}),
    message: `tiergate: ${why} Money: ${moneyText(policy, state)}`,
  });
  const perSession = limits.subagentsPerSession;
  if (perSession !== undefined && started >= perSession)
    return deny(
      `subagentsPerSession ${perSession} reached (${started} started); denied`,
      `this session has started ${plural(started, 'subagent', 'subagents')}, the limit (limits.subagentsPerSession) is ${perSession}; no more subagents run in this session. Finish the work here, or start a new session.`,
    );
  const concurrent = limits.concurrentSubagents;
  if (concurrent !== undefined && running >= concurrent)
    return deny(
      `concurrentSubagents ${concurrent} reached (${running} running); denied`,
      `${plural(running, 'subagent is', 'subagents are')} running in this session, the limit (limits.concurrentSubagents) is ${concurrent}; wait for one to finish, then dispatch this one again.`,
    );
  return decision;
}
