/**
 * Fan-out limits (src/routing-engine/limits.ts through decide, issue 33 item 2): a dispatch at the limit is refused with
 * the count, the limit and the money; under it nothing changes; a fault or an uncounted harness fails open for the
 * limits only; and a project file may only lower a limit (config/project-layer.ts), checked over generated values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import { judgeSection } from '../../../src/config/project-layer.js';
import type { Policy } from '../../../src/contracts/config.js';
import { DecisionSchema } from '../../../src/contracts/decision.js';
import type { SpendState } from '../../../src/routing-engine/budget.js';
import { decide } from '../../../src/routing-engine/decide.js';
import { decisionKind } from '../../../src/runtime/decision-record.js';
import { claudeDispatch, codexDispatch } from './observations.js';
import { testLookup } from './price-table.js';

const prices = testLookup();
const USD = 1_000_000_000_000n;
const policy = (limits: Policy['limits'], budgets: Partial<Policy['budgets']> = {}): Policy => ({
  ...DEFAULT_POLICY,
  limits,
  budgets: { ...DEFAULT_POLICY.budgets, ...budgets },
});
const state = (running: number, started: number, s: Partial<SpendState> = {}): SpendState => ({
  session: { pico: USD / 100n, unknown: 0 },
  day: { pico: 0n, unknown: 0 },
  month: { pico: 0n, unknown: 0 },
  sessionTotal: null,
  error: null,
  fanout: { running, started },
  estimate: USD / 250n,
  ...s,
});
// Opus parent, sonnet child: within the ceiling, so only a limit can refuse it.
const obs = () => claudeDispatch('claude-opus-5-5', 'sonnet');

describe('limits.concurrentSubagents', () => {
  it('at the limit: denied, stating the count, the limit, the spend, the budget and the estimate', () => {
    const d = decide(obs(), policy({ concurrentSubagents: 2 }, { session: '1' }), prices, state(2, 5));
    expect(DecisionSchema.parse(d)).toEqual(d);
    expect(d).toMatchObject({ action: 'deny', reason: 'limit-denied' });
    if (d.action !== 'deny') throw new Error('unreachable');
    expect(d.message).toBe(
      'tiergate: 2 subagents are running in this session, the limit (limits.concurrentSubagents) is 2; wait for one ' +
        "to finish, then dispatch this one again. Money: $0.0100 spent on this session's subagents so far (running " +
        'ones at their estimate); the session budget of $1 ($0.0100 spent). This child is estimated at $0.0040 (from ' +
        'the children recorded so far: an estimate).',
    );
    expect(decisionKind(d)).toBe('limit-deny');
  });

  it('under the limit, or where the harness reports no child end (no count): the ceiling decides alone', () => {
    const p = policy({ concurrentSubagents: 2 });
    const ceilingOnly = decide(obs(), p, prices);
    expect(decide(obs(), p, prices, state(1, 9))).toEqual(ceilingOnly);
    expect(decide(obs(), p, prices, state(5, 9, { fanout: undefined }))).toMatchObject({ action: ceilingOnly.action });
  });

  it('a count that could not be read fails the limits open, diagnosed; warn mode only records', () => {
    const d = decide(
      obs(),
      policy({ concurrentSubagents: 1 }),
      prices,
      state(3, 3, { error: 'spend summary is malformed' }),
    );
    expect(d.action).not.toBe('deny');
    expect(d.diagnostics).toContain('limits not checked: spend summary is malformed');
    const warn = decide(obs(), { ...policy({ concurrentSubagents: 1 }), mode: 'warn' }, prices, state(3, 3));
    expect(warn).toMatchObject({ action: 'allow', reason: 'warn-only' });
  });

  it('an over-ceiling refusal stands as the ceiling wrote it (a limit never replaces its retry)', () => {
    const noRewrite = codexDispatch('gpt-6-sol', 'gpt-6-astra');
    const ceiling = decide(noRewrite, policy({}), prices);
    expect(ceiling).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied' });
    expect(decide(noRewrite, policy({ concurrentSubagents: 1 }), prices, state(4, 4))).toMatchObject({
      action: 'deny',
      reason: 'over-ceiling-denied',
    });
  });
});

describe('limits.subagentsPerSession', () => {
  it('the session has started as many as allowed: denied even with none running', () => {
    const d = decide(obs(), policy({ subagentsPerSession: 3 }), prices, state(0, 3));
    expect(d).toMatchObject({ action: 'deny', reason: 'limit-denied' });
    if (d.action === 'deny')
      expect(d.message).toMatch(
        /^tiergate: this session has started 3 subagents, the limit \(limits\.subagentsPerSession\) is 3; .* no budget set\./,
      );
    expect(decide(obs(), policy({ subagentsPerSession: 3 }), prices, state(0, 2)).action).not.toBe('deny');
  });
});

describe('a project file may only lower a limit', () => {
  const limit = fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined });
  const limits = fc.record({ concurrentSubagents: limit, subagentsPerSession: limit }, { requiredKeys: [] });
  it("the merged limit is never above the user's, nor dropped where the user set one", () => {
    fc.assert(
      fc.property(limits, limits, (user, project) => {
        const { value } = judgeSection('limits', user, project, false);
        for (const k of ['concurrentSubagents', 'subagentsPerSession'] as const) {
          if (user[k] !== undefined) expect(value[k]).toBeLessThanOrEqual(user[k]);
          if (user[k] !== undefined) expect(value[k]).toBeDefined();
          // A lower or newly added limit applies.
          if (project[k] !== undefined && (user[k] === undefined || project[k] < user[k]))
            expect(value[k]).toBe(project[k]);
        }
      }),
    );
  });

  it('a trusted project may raise one', () => {
    expect(judgeSection('limits', { concurrentSubagents: 2 }, { concurrentSubagents: 8 }, true).value).toEqual({
      concurrentSubagents: 8,
    });
    const untrusted = judgeSection('limits', { concurrentSubagents: 2 }, { concurrentSubagents: 8 }, false);
    expect(untrusted.value).toEqual({ concurrentSubagents: 2 });
    expect(untrusted.effects).toEqual([
      { key: 'limits.concurrentSubagents', applied: false, why: "8 is above the user's 2" },
    ]);
  });
});
