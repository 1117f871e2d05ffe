/**
 * The one call every adapter makes at dispatch: policy + prices (loaded once per process), the pure decision, the
 * diagnostics, and a spool line for the ledger. Never throws: tiergate's own failure is an allow plus a diagnostic.
 */
import type { Decision } from '../contracts/decision.js';
import type { SpoolRecord } from '../contracts/spool.js';
import type { Defer, Delivery } from '../contracts/hook.js';
import type { DispatchObservation } from '../contracts/observation.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { appendSpool } from '../observer/spool.js';
import { redactToolInput } from '../observer/redact.js';
import { decide } from '../routing-engine/decide.js';
import { hasBudget, type SpendState } from '../routing-engine/budget.js';
import { askState, decideReserving } from '../observer/spend-reserve.js';
import { hasLimits } from '../routing-engine/limits.js';
import { policyAsks } from '../routing-engine/ask.js';
import { DESCRIPTORS } from '../descriptors/index.js';
import type { Policy } from '../contracts/config.js';
import type { PriceLookup } from '../contracts/prices.js';
import { loadRuntime } from '../config/runtime.js';
import { effectiveModel } from './effective-model.js';
import { withRewritePolicy } from '../observer/rewrite-marker.js';
import { decisionDetail, undeliveredDetail } from './decision-record.js';

// Pure, apart so Claude Code's hooks module (no Node) records the same value.
export { effectiveModel };

type DispatchRecord = Extract<SpoolRecord, { type: 'dispatch' }>;

/**
 * What the ledger should say the dispatch became. A correction or denial the harness never received (the hook's
 * deadline passed, or tiergate failed before printing it) did not happen: the harness ran the original input, so it is
 * recorded as allowed unchanged, with the reason saying why.
 */
export function recordAsDelivered(rec: DispatchRecord, obs: DispatchObservation, delivery: Delivery): DispatchRecord {
  if (delivery === 'delivered' || rec.decision.action === 'allow') return rec;
  const unchanged: Decision = {
    action: 'allow',
    reason: 'deadline',
    summary: '',
    comparison: null,
    tier: null,
    diagnostics: [],
  };
  return {
    ...rec,
    decision: {
      action: 'allow',
      reason: delivery === 'deadline' ? 'deadline' : 'internal-error',
      tier: null,
      effectiveModel: effectiveModel(obs, unchanged),
      catalogVersion: rec.decision.catalogVersion,
      ...(rec.decision.detail ? { detail: undeliveredDetail(rec.decision.detail) } : {}),
    },
  };
}

/**
 * `defer` (the command runner's) holds the spool line until the runner knows whether the answer reached the harness.
 * Decides first; everything after the decision (the diagnostics, the record) is persistence, and a failure
 * there is diagnosed and never changes what was decided: a read-only data dir still denies.
 */
export function routeDispatch(
  obs: DispatchObservation,
  env: Env = process.env,
  defer?: Defer,
  /** How this dispatch is priced when the harness bills otherwise than per token (its adapter's, by request). */
  reprice?: (prices: PriceLookup) => PriceLookup,
): Decision {
  let decision: Decision;
  let catalogVersion: string | null = null;
  let policyDiagnostics: string[] = [];
  let detail: (() => DispatchRecord['decision']['detail']) | undefined;
  try {
    const rt = loadRuntime(env, obs.cwd);
    catalogVersion = rt.prices.catalogVersion;
    const prices = reprice ? reprice(rt.prices) : rt.prices;
    decision = decideWithSpend(withRewritePolicy(obs, rt.policy, env), rt.policy, prices, env);
    policyDiagnostics = rt.policyDiagnostics;
    const decided = decision;
    // Token rates, not the adapter's repriced ones: the ledger prices what the child cost by tokens.
    detail = () => decisionDetail(obs, decided, rt.prices, rt.policy);
  } catch (err) {
    // Logged below with the decision's other diagnostics, once (as an error: tiergate failed, the dispatch went ahead).
    decision = {
      action: 'allow',
      reason: 'internal-error',
      summary: 'tiergate failed; dispatch allowed',
      comparison: null,
      tier: null,
      diagnostics: [errorText(err)],
    };
  }
  try {
    const level = decision.reason === 'internal-error' ? 'error' : 'warn';
    for (const d of [...policyDiagnostics, ...decision.diagnostics]) {
      diagnose(level, `dispatch:${obs.harness}`, d, { reason: decision.reason, callId: obs.callId }, env);
    }
    record(obs, decision, catalogVersion, env, defer, detail);
  } catch (err) {
    diagnose('error', 'spool', errorText(err), { callId: obs.callId }, env);
  }
  return decision;
}

/**
 * The decision, with the budgets and fan-out limits when the policy sets one: the spend and this session's children
 * read, and this child's expected cost reserved, under one lock (observer/spend-reserve.ts; never SQLite). Without a
 * budget or a limit nothing is read, locked or written. Limits count only where the harness reports a child's end.
 */
function decideWithSpend(obs: DispatchObservation, policy: Policy, prices: PriceLookup, env: Env): Decision {
  const limited = hasLimits(policy.limits) && DESCRIPTORS[obs.harness].childEndEvent !== undefined;
  if (policy.mode === 'off' || !(hasBudget(policy.budgets) || limited)) {
    // An ask states an estimate from the children recorded: read (never written) only where it can be asked.
    if (policy.mode === 'on' && obs.canAsk === true && policyAsks(policy))
      return decide(obs, policy, prices, askState(env, obs));
    return decide(obs, policy, prices);
  }
  try {
    return decideReserving(
      env,
      obs,
      policy.budgets,
      (spend) => decide(obs, policy, prices, spend),
      (d) => effectiveModel(obs, d),
      limited,
    );
  } catch (err) {
    // A fault reading or reserving the spend costs the budgets only: the price ceiling still decides (issue 28).
    return decide(obs, policy, prices, unreadSpend(`the spend could not be read: ${errorText(err)}`));
  }
}

const unreadSpend = (error: string): SpendState => ({
  session: null,
  day: { pico: 0n, unknown: 0 },
  month: { pico: 0n, unknown: 0 },
  sessionTotal: null,
  error,
});

/** The line with its decision record; without it (a fault building it) it reads as "estimated (dispatch not recorded)". */
function withDetail(
  rec: DispatchRecord,
  detail: (() => DispatchRecord['decision']['detail']) | undefined,
  env: Env,
): DispatchRecord {
  try {
    const d = detail?.();
    return d ? { ...rec, decision: { ...rec.decision, detail: d } } : rec;
  } catch (err) {
    diagnose('warn', 'spool', `decision record: ${errorText(err)}`, { callId: rec.observation.callId }, env);
    return rec;
  }
}

function record(
  obs: DispatchObservation,
  decision: Decision,
  catalogVersion: string | null,
  env: Env,
  defer?: Defer,
  detail?: () => DispatchRecord['decision']['detail'],
): void {
  const rec: DispatchRecord = {
    type: 'dispatch',
    // The record keeps no prompt text; the decision above saw the whole input.
    observation: { ...obs, toolInput: redactToolInput(obs.toolInput) },
    decision: {
      action: decision.ask ? 'ask' : decision.action,
      reason: decision.ask?.reason ?? decision.reason,
      tier: decision.tier,
      effectiveModel: effectiveModel(obs, decision),
      catalogVersion,
    },
  };
  // The decision record is built when the line is written: after the answer went out, where the runner defers it.
  const write = (delivery: Delivery) => {
    try {
      appendSpool(recordAsDelivered(withDetail(rec, detail, env), obs, delivery), env);
    } catch (err) {
      diagnose('error', 'spool', errorText(err), { callId: obs.callId }, env);
    }
  };
  if (defer) defer(write);
  else write('delivered');
}
