/**
 * The decision in independent parts (issue 28 item 1b): a fault in the budget part (a value no layer should have let
 * through, or a spend that cannot be read) fails open for the budgets only, with a diagnostic, and the price ceiling
 * still decides. Before, the throw left decide() and the dispatch was allowed as an internal error.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import type { Policy } from '../../../src/contracts/config.js';
import type { SpendState } from '../../../src/routing-engine/budget.js';
import { decide } from '../../../src/routing-engine/decide.js';
import { claudeDispatch } from './observations.js';
import { testLookup } from './price-table.js';

const prices = testLookup();
const USD = 1_000_000_000_000n;
// Past the schema on purpose (a value from a hand-edited or older effective file): the engine must not trust the load.
const policy = (budgets: Record<string, unknown>): Policy =>
  ({ ...DEFAULT_POLICY, budgets: { ...DEFAULT_POLICY.budgets, ...budgets } }) as Policy;
const spend = (over: Partial<SpendState> = {}): SpendState => ({
  session: { pico: 10n * USD, unknown: 0 },
  day: { pico: 0n, unknown: 0 },
  month: { pico: 0n, unknown: 0 },
  sessionTotal: null,
  error: null,
  ...over,
});
/** An opus child of a sonnet parent: over the ceiling, corrected to sonnet. */
const opusUnderSonnet = () => claudeDispatch('claude-sonnet-5-5', 'opus');

describe('a fault in the budget part', () => {
  it('control: a sound budget that is spent moves an in-ceiling child to the cheap tier', () => {
    const d = decide(claudeDispatch('claude-opus-5-5', 'sonnet'), policy({ session: '5' }), prices, spend());
    expect(d).toMatchObject({ action: 'correct', reason: 'budget-downshifted', value: 'haiku' });
  });

  const faults: [string, Record<string, unknown>, () => SpendState][] = [
    ['a 19-decimal budget', { session: '0.0000000000000000001' }, () => spend()],
    ['warnAt 1e-300', { day: '100', warnAt: 1e-300 }, () => spend()],
    ['a budget that is not a decimal', { month: 'lots' }, () => spend()],
    [
      'a spend figure that throws when read',
      { session: '5' },
      () =>
        Object.defineProperty(spend(), 'session', {
          get(): never {
            throw new Error('spend: unreadable');
          },
        }),
    ],
  ];
  for (const [name, budgets, state] of faults) {
    it(`${name}: the ceiling still corrects the opus child, the budget is skipped and diagnosed`, () => {
      const d = decide(opusUnderSonnet(), policy(budgets), prices, state());
      expect(d).toMatchObject({ action: 'correct', reason: 'over-ceiling-corrected', value: 'sonnet' });
      expect(d.budget?.status).toBe('unknown');
      expect(d.diagnostics).toContainEqual(expect.stringMatching(/^budgets not checked: /));
    });
  }

  it('an in-ceiling child with a faulty budget is allowed as the ceiling says (fails open for the budget only)', () => {
    const d = decide(
      claudeDispatch('claude-opus-5-5', 'sonnet'),
      policy({ session: '1.0000000000000000001' }),
      prices,
      spend(),
    );
    expect(d).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
    expect(d.diagnostics.at(-1)!.length).toBeLessThan(160);
  });

  it('warn mode still turns the ceiling correction into a warn-only allow, with the budget note kept', () => {
    const p = { ...policy({ session: '0.0000000000000000001' }), mode: 'warn' as const };
    const d = decide(opusUnderSonnet(), p, prices, spend());
    expect(d).toMatchObject({ action: 'allow', reason: 'warn-only', budget: { status: 'unknown' } });
  });
});
