/**
 * An approved budget ask reserves (issue 33 items 2 and 3): a dispatch past a budget under budgets.action "ask" is
 * asked about, and if the person approves the child runs as asked, so the dispatch reserves the requested model's
 * estimated cost under the spend lock, as an allowed child does; a denial no one can overturn (headless, or action
 * "deny") reserves nothing. Without it, asks approved at once each saw the budget without the others.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import type { Decision } from '../../../src/contracts/decision.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { readSpendFile } from '../../../src/observer/spend-read.js';
import { mayNotRun } from '../../../src/observer/spend-reserve.js';
import {
  countCompletion,
  emptySpend,
  liveReservations,
  RESERVATION_TTL_MS,
  spendPath,
  type SpendFile,
} from '../../../src/observer/spend-summary.js';
import { routeDispatch } from '../../../src/runtime/dispatch.js';
import { tempHome } from './helpers.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';

const USD = 1_000_000_000_000n;
const NOW = Date.now();

let env: Record<string, string>;
function setUp(budgets: Record<string, unknown>) {
  env = { ...tempHome().env, TIERGATE_PRICE_REFRESH: 'off' };
  mkdirSync(join(env.TIERGATE_HOME!, 'config'), { recursive: true });
  mkdirSync(join(env.TIERGATE_HOME!, 'data'), { recursive: true });
  writeFileSync(join(env.TIERGATE_HOME!, 'config', 'config.json'), JSON.stringify({ budgets }));
  clearRuntimeCache();
  // $5 spent today by three children of another session and agent: one on opus at $3, two on sonnet at $1. The
  // estimate for a child on opus is then $3 (the median of opus children), for any other model $1 (the median of all).
  let f = emptySpend(NOW);
  const child = (k: string, m: string, usd: bigint) =>
    (f = countCompletion(f, { k, s: 'claude:other', at: NOW - 60_000, pico: (usd * USD).toString(), m }, NOW));
  child('k1', 'claude-opus-5-5', 3n);
  child('k2', 'claude-sonnet-5-5', 1n);
  child('k3', 'claude-sonnet-5-5', 1n);
  writeFileSync(spendPath(env), JSON.stringify(f));
}
beforeEach(() => setUp({ day: '1', action: 'ask' }));

/** The summary with the held lines (spend-held.ts) counted, as every reader sees it. */
const spend = (): SpendFile => readSpendFile(env).file ?? emptySpend(NOW);

const obs = (callId: string, canAsk: boolean): DispatchObservation =>
  claudeDispatchObservation({ sessionId: 's1', callId, requestedModel: 'claude-opus-5-5', at: NOW, canAsk });

describe('mayNotRun', () => {
  const d = (action: Decision['action'], ask: boolean) =>
    ({ action, ...(ask ? { ask: { reason: 'budget-asked', message: 'm', otherwise: 'o' } } : {}) }) as Decision;
  it('only a denial without an ask lets no child run', () => {
    expect(mayNotRun(d('deny', false))).toBe(true);
    expect(mayNotRun(d('deny', true))).toBe(false);
    expect(mayNotRun(d('allow', false))).toBe(false);
    expect(mayNotRun(d('correct', true))).toBe(false);
  });
});

describe('a budget ask reserves', () => {
  it('past the day budget with someone to ask: asked, and the requested model’s estimate is reserved under its call id', () => {
    const decision = routeDispatch(obs('toolu_a1', true), env);
    expect(decision).toMatchObject({ action: 'deny', reason: 'budget-denied', ask: { reason: 'budget-asked' } });
    const held = liveReservations(spend(), NOW);
    expect(held).toHaveLength(1);
    // The opus median ($3), not the all-children median ($1): the reservation is at the model the child runs on if approved.
    expect(held[0]).toMatchObject({ c: 'toolu_a1', s: 'claude:s1', pico: (3n * USD).toString(), h: 'claude' });
    // A refused ask is never reported (no hook on "No"): it holds until it expires.
    expect(held[0]!.until - held[0]!.at).toBe(RESERVATION_TTL_MS);
  });

  it('asks one after another each see the reservations before them (approved at once, they cannot overshoot unseen)', () => {
    for (const id of ['toolu_b1', 'toolu_b2', 'toolu_b3']) routeDispatch(obs(id, true), env);
    const held = liveReservations(spend(), NOW);
    expect(held.map((r) => r.c)).toEqual(['toolu_b1', 'toolu_b2', 'toolu_b3']);
    expect(held.reduce((a, r) => a + BigInt(r.pico), 0n)).toBe(9n * USD);
  });

  it('headless (no one to ask): the budget denies and nothing is reserved', () => {
    const decision = routeDispatch(obs('toolu_c1', false), env);
    expect(decision).toMatchObject({ action: 'deny', reason: 'budget-denied' });
    expect(decision.ask).toBeUndefined();
    expect(spend().reserved ?? []).toEqual([]);
  });

  it('budgets.action "deny": the denial reserves nothing, whoever could be asked', () => {
    setUp({ day: '1', action: 'deny' });
    const decision = routeDispatch(obs('toolu_d1', true), env);
    expect(decision).toMatchObject({ action: 'deny', reason: 'budget-denied' });
    expect(decision.ask).toBeUndefined();
    expect(spend().reserved ?? []).toEqual([]);
  });
});
