/**
 * Issue 33 item 4: every refusal the model reads states the money (spent so far, the budget, the estimate) where the
 * dispatch read the spend, each message checked for its money fields. The child-stop message is tested with its
 * runtime (test/unit/runtime/child-stop.test.ts); the ask prompt with its own path.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import type { Policy } from '../../../src/contracts/config.js';
import type { Decision } from '../../../src/contracts/decision.js';
import type { SpendState } from '../../../src/routing-engine/budget.js';
import { decide } from '../../../src/routing-engine/decide.js';
import { codexDispatch } from './observations.js';
import { testLookup } from './price-table.js';

const prices = testLookup();
const USD = 1_000_000_000_000n;
const policy = (budgets: Partial<Policy['budgets']>, limits: Policy['limits'] = {}): Policy => ({
  ...DEFAULT_POLICY,
  limits,
  budgets: { ...DEFAULT_POLICY.budgets, ...budgets },
});
const spend = (sessionUsd: bigint, s: Partial<SpendState> = {}): SpendState => ({
  session: { pico: sessionUsd, unknown: 0 },
  day: { pico: 0n, unknown: 0 },
  month: { pico: 0n, unknown: 0 },
  sessionTotal: null,
  error: null,
  estimate: USD / 250n,
  ...s,
});
const message = (d: Decision): string => {
  if (d.action !== 'deny') throw new Error(`not a denial: ${d.action} ${d.reason}`);
  return d.message;
};
const ESTIMATE = 'This child is estimated at $0.0040 (from the children recorded so far: an estimate).';

describe('the money in every refusal', () => {
  it('budget-denied: the budget, what is spent against it, the estimate', () => {
    const d = decide(
      codexDispatch('gpt-6-sol', 'gpt-6-luna'),
      policy({ session: '1', action: 'deny' }),
      prices,
      spend((USD * 3n) / 2n),
    );
    expect(d.reason).toBe('budget-denied');
    const m = message(d);
    expect(m).toContain('the session budget of $1 ($1.50 spent) is spent');
    expect(m).toContain(ESTIMATE);
  });

  it('budget-downshifted, denied with a retry on the cheap tier (Codex takes no rewrite): the estimate too', () => {
    const d = decide(codexDispatch('gpt-6-astra', 'gpt-6-sol'), policy({ session: '1' }), prices, spend(2n * USD));
    expect(d).toMatchObject({ action: 'deny', reason: 'budget-downshifted' });
    const m = message(d);
    expect(m).toContain('the session budget of $1 ($2.00 spent) is spent');
    expect(m).toContain('gpt-6-luna');
    expect(m.endsWith(ESTIMATE)).toBe(true);
  });

  it('over the ceiling under a budget: the retry, then the session spend, the budget and the estimate', () => {
    const d = decide(codexDispatch('gpt-6-sol', 'gpt-6-astra'), policy({ session: '1' }), prices, spend(USD / 5n));
    expect(d.reason).toBe('over-ceiling-denied');
    const m = message(d);
    expect(m).toMatch(/costs more than your own model gpt-6-sol.*Retry/);
    expect(m).toContain(
      "Money: $0.2000 spent on this session's subagents so far (running ones at their estimate); the session budget of $1 ($0.2000 spent). " +
        ESTIMATE,
    );
  });

  it('over the ceiling with only a limit set: the spend, "no budget set", the estimate', () => {
    const d = decide(
      codexDispatch('gpt-6-sol', 'gpt-6-astra'),
      policy({}, { concurrentSubagents: 4 }),
      prices,
      spend(USD / 5n, { fanout: { running: 0, started: 0 } }),
    );
    expect(message(d)).toContain(
      "Money: $0.2000 spent on this session's subagents so far (running ones at their estimate); no budget set. " +
        ESTIMATE,
    );
  });

  it('limit-denied: the count and limit, then the money', () => {
    const d = decide(
      codexDispatch('gpt-6-sol', 'gpt-6-luna'),
      policy({ day: '10' }, { subagentsPerSession: 1 }),
      prices,
      spend(USD / 5n, { fanout: { running: 0, started: 1 }, day: { pico: USD, unknown: 0 } }),
    );
    expect(d.reason).toBe('limit-denied');
    expect(message(d)).toContain('the daily budget of $10 ($1.00 spent). ' + ESTIMATE);
  });

  it('no budget and no limit: no spend is read, and the ceiling states the two rates only', () => {
    const d = decide(codexDispatch('gpt-6-sol', 'gpt-6-astra'), policy({}), prices);
    const m = message(d);
    expect(m).toContain('input $10/M vs $2/M');
    expect(m).not.toContain('Money:');
  });

  it('a spend that could not be read: nothing claimed about it', () => {
    const d = decide(
      codexDispatch('gpt-6-sol', 'gpt-6-astra'),
      policy({ session: '1' }),
      prices,
      spend(0n, { error: 'x' }),
    );
    expect(message(d)).not.toContain('Money:');
  });
});
