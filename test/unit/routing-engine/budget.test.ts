/**
 * The budget rule in the engine (src/routing-engine/budget.ts through decide): exact decimal arithmetic, warnings,
 * unpriced children never read as $0, and a downshift that never raises a cost.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import type { Policy } from '../../../src/contracts/config.js';
import { DecisionSchema, type Decision } from '../../../src/contracts/decision.js';
import { budgetLines, showUsd, type SpendState } from '../../../src/routing-engine/budget.js';
import { decide } from '../../../src/routing-engine/decide.js';
import { claudeDispatch, codexDispatch, opencodeDispatch } from './observations.js';
import { testLookup } from './price-table.js';

const prices = testLookup();
const USD = 1_000_000_000_000n; // pico per USD
const policy = (budgets: Partial<Policy['budgets']>, over: Partial<Policy> = {}): Policy => ({
  ...DEFAULT_POLICY,
  ...over,
  budgets: { ...DEFAULT_POLICY.budgets, ...budgets },
});
const fig = (pico: bigint, unknown = 0) => ({ pico, unknown });
const spend = (s: Partial<SpendState> = {}): SpendState => ({
  session: fig(0n),
  day: fig(0n),
  month: fig(0n),
  sessionTotal: null,
  error: null,
  ...s,
});

describe('budget arithmetic (exact decimal)', () => {
  it('0.1 + 0.2 of spend is exactly a 0.3 budget: over, not under by a float rounding', () => {
    const pico = (1n * USD) / 10n + (2n * USD) / 10n;
    const [line] = budgetLines(policy({ session: '0.3' }).budgets, spend({ session: fig(pico) }));
    expect(line).toEqual({ kind: 'session', limit: '0.3', spent: '0.3', unknown: 0, status: 'over' });
    const [under] = budgetLines(policy({ session: '0.3' }).budgets, spend({ session: fig(pico - 1n) }));
    expect(under!.status).toBe('warning');
  });

  it('warnAt is a fraction of the budget, exactly: 0.8 of $5 is $4', () => {
    const b = policy({ day: '5', warnAt: 0.8 }).budgets;
    expect(budgetLines(b, spend({ day: fig(4n * USD - 1n) }))[0]!.status).toBe('ok');
    expect(budgetLines(b, spend({ day: fig(4n * USD) }))[0]!.status).toBe('warning');
    expect(budgetLines(b, spend({ day: fig(5n * USD) }))[0]!.status).toBe('over');
  });

  it('a budget of 40.000000000001 is not yet reached by $40 (twelve decimals kept)', () => {
    expect(budgetLines(policy({ month: '40.000000000001' }).budgets, spend({ month: fig(40n * USD) }))[0]!.status).toBe(
      'warning',
    );
    expect(
      budgetLines(policy({ month: '40.000000000001' }).budgets, spend({ month: fig(40n * USD + 1n) }))[0]!.status,
    ).toBe('over');
  });

  it('unpriced children are unknown, never $0: under the budget they make a warning, and the line counts them', () => {
    const [line] = budgetLines(policy({ session: '5' }).budgets, spend({ session: fig(1n, 2) }));
    expect(line).toMatchObject({ status: 'warning', unknown: 2 });
    const d = decide(
      claudeDispatch('claude-opus-5-5', 'haiku'),
      policy({ session: '5' }),
      prices,
      spend({ session: fig(1n, 2) }),
    );
    expect(d).toMatchObject({ action: 'allow', reason: 'budget-warning' });
    expect(d.budget?.summary).toMatch(/2 children unpriced/);
  });

  it('sessionTotal counts only where the harness reports it', () => {
    const b = policy({ sessionTotal: '1' }).budgets;
    expect(budgetLines(b, spend())[0]).toMatchObject({ kind: 'sessionTotal', status: 'not-reported' });
    expect(budgetLines(b, spend({ sessionTotal: '1.0000001' }))[0]).toMatchObject({
      status: 'over',
      spent: '1.0000001',
    });
    expect(budgetLines(b, spend({ sessionTotal: 'NaN' }))[0]).toMatchObject({ status: 'not-reported' });
  });

  it('shows dollars with cents from $1 up and four places below', () => {
    expect(showUsd(5_125_000_000_000n)).toBe('$5.13');
    expect(showUsd(41_900_000_000n)).toBe('$0.0419');
  });
});

describe('past a budget: downshift', () => {
  const over = spend({ session: fig(6n * USD) });

  it('Claude: an opus child under an opus parent moves to the cheap tier (haiku), naming the budget in the summary', () => {
    const obs = claudeDispatch('claude-opus-5-5', 'opus');
    const d = decide(obs, policy({ session: '5' }), prices, over);
    expect(d).toMatchObject({
      action: 'correct',
      reason: 'budget-downshifted',
      field: 'model',
      value: 'haiku',
      tier: 'cheap',
    });
    if (d.action !== 'correct') return;
    expect(d.updatedInput).toEqual({ ...obs.toolInput, model: 'haiku' });
    expect(d.budget).toMatchObject({ status: 'over' });
    expect(d.summary).toMatch(/session budget of \$5 \(\$6\.00 spent\)/);
    expect(DecisionSchema.parse(d)).toEqual(d);
  });

  it('a correction the ceiling made (opus -> sonnet) goes further down to the cheap tier', () => {
    const d = decide(
      claudeDispatch('claude-sonnet-5-5', 'opus'),
      policy({ day: '1' }),
      prices,
      spend({ day: fig(2n * USD) }),
    );
    expect(d).toMatchObject({ action: 'correct', reason: 'budget-downshifted', value: 'haiku' });
  });

  it('a child inheriting the parent (no model named, default tier parent) is moved to the cheap tier too', () => {
    const d = decide(
      claudeDispatch('claude-opus-5-5', null),
      policy({ session: '5' }, { defaultTier: 'parent' }),
      prices,
      over,
    );
    expect(d).toMatchObject({ action: 'correct', reason: 'budget-downshifted', value: 'haiku' });
  });

  it('already on the cheap tier: runs unchanged (recorded as downshifted), so a retry on it is not refused again', () => {
    const d = decide(claudeDispatch('claude-opus-5-5', 'haiku'), policy({ session: '5' }), prices, over);
    expect(d).toMatchObject({ action: 'allow', reason: 'budget-downshifted' });
    expect(d.summary).toMatch(/already runs on the cheap tier/);
  });

  it('never raises a cost: a child on a model cheaper than the cheap tier stays where it is', () => {
    // cheap tier mapped to sonnet; the child asks for haiku, cheaper than sonnet on every rate.
    const p = policy(
      { session: '5' },
      { tiers: { ...DEFAULT_POLICY.tiers, claude: { cheap: 'sonnet', standard: 'sonnet', premium: 'opus' } } },
    );
    const d = decide(claudeDispatch('claude-opus-5-5', 'haiku'), p, prices, over);
    expect(d).toMatchObject({ action: 'allow', reason: 'budget-downshifted' });
    expect(d.summary).toMatch(/no pricier than the cheap tier/);
  });

  it('never raises a cost: a crossover (cheap tier pricier on output) leaves the child unchanged', () => {
    const p = policy({ session: '5' }, { tiers: { ...DEFAULT_POLICY.tiers, claude: { cheap: 'cross-model' } } });
    const obs = {
      ...claudeDispatch('claude-opus-5-5', 'sonnet'),
      capability: { ...claudeDispatch(null, null).capability, legalValues: null },
    };
    const d = decide(obs, p, prices, over);
    expect(d).toMatchObject({ action: 'allow', reason: 'budget-downshifted' });
  });

  it('Codex without rewrites: denied with a retry naming the cheap model', () => {
    const d = decide(codexDispatch('gpt-6-astra', 'gpt-6-astra'), policy({ session: '5' }), prices, over);
    expect(d).toMatchObject({ action: 'deny', reason: 'budget-downshifted', tier: 'cheap' });
    if (d.action !== 'deny') return;
    expect(d.message).toMatch(
      /^tiergate: the session budget of \$5 \(\$6\.00 spent\) is spent; from here subagents run on the cheap tier\. Retry the same dispatch with model: "gpt-6-luna" \(tier cheap\)\./,
    );
    expect(d.message).toMatch(/raise budgets\.session in your tiergate config/);
  });

  it('OpenCode (agent field): switched to the cheap tier agent', () => {
    const obs = opencodeDispatch('fake/parent', 'pricey', 'claude-opus-5-5', [
      { value: 'tg-cheap', model: 'claude-haiku-5-5', tier: 'cheap' },
      { value: 'pricey', model: 'claude-opus-5-5', tier: null },
    ]);
    const d = decide(
      { ...obs, parentModel: 'claude-opus-5-5' },
      policy({ day: '1' }),
      prices,
      spend({ day: fig(USD) }),
    );
    expect(d).toMatchObject({
      action: 'correct',
      reason: 'budget-downshifted',
      field: 'subagent_type',
      value: 'tg-cheap',
    });
  });

  it('no cheap tier configured: denied, saying which tier to map', () => {
    const p = policy({ session: '5' }, { tiers: { ...DEFAULT_POLICY.tiers, claude: { standard: 'sonnet' } } });
    const d = decide(claudeDispatch('claude-opus-5-5', 'opus'), p, prices, over);
    expect(d).toMatchObject({ action: 'deny', reason: 'budget-denied' });
    if (d.action === 'deny') expect(d.message).toMatch(/tiers\.claude\.cheap/);
  });

  it('a child whose price is unknown cannot be proven cheaper: denied, not guessed', () => {
    const d = decide(claudeDispatch('claude-opus-5-5', 'mystery-model'), policy({ session: '5' }), prices, over);
    expect(d).toMatchObject({ action: 'deny', reason: 'budget-denied' });
  });

  it('a ceiling deny stands (its own retry), with the budget noted', () => {
    const d = decide(codexDispatch('gpt-6-sol', 'gpt-6-astra'), policy({ session: '5' }), prices, over);
    expect(d).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied', budget: { status: 'over' } });
  });
});

describe('past a budget: deny', () => {
  it('refuses with the budget, the spend so far and how to go on', () => {
    const d = decide(
      claudeDispatch('claude-opus-5-5', 'haiku'),
      policy({ day: '40', month: '400', action: 'deny' }),
      prices,
      spend({ day: fig(41_200_000_000_000n, 1), month: fig(41_200_000_000_000n, 1) }),
    );
    expect(d).toMatchObject({ action: 'deny', reason: 'budget-denied' });
    if (d.action !== 'deny') return;
    expect(d.message).toBe(
      'tiergate: the daily budget of $40 ($41.20 spent, 1 child unpriced) is spent; no more subagents run under it. ' +
        "To go on, raise budgets.day in your tiergate config ('tiergate budget' shows every budget) or wait for tomorrow.",
    );
  });

  it('names every budget spent at once', () => {
    const d = decide(
      claudeDispatch('claude-opus-5-5', 'haiku'),
      policy({ session: '1', month: '2', action: 'deny' }),
      prices,
      spend({ session: fig(3n * USD), month: fig(3n * USD) }),
    );
    if (d.action !== 'deny') throw new Error('expected a deny');
    expect(d.message).toMatch(
      /the session budget of \$1 \(\$3\.00 spent\) and the monthly budget of \$2 \(\$3\.00 spent\) is spent/,
    );
    expect(d.message).toMatch(
      /raise budgets\.session and budgets\.month .* or start a new session or wait for next month\./,
    );
  });
});

describe('around the budget rule', () => {
  const obs = claudeDispatch('claude-opus-5-5', 'opus');

  it('under every budget nothing changes but the note', () => {
    const plain = decide(obs, DEFAULT_POLICY, prices);
    const d = decide(obs, policy({ session: '5', day: '40' }), prices, spend({ session: fig(USD), day: fig(USD) }));
    const { budget, ...rest } = d;
    expect(rest).toEqual(plain);
    expect(budget).toMatchObject({ status: 'ok', summary: 'within every budget' });
  });

  it('near a budget: allowed, recorded as budget-warning', () => {
    const d = decide(
      claudeDispatch('claude-opus-5-5', 'haiku'),
      policy({ session: '5' }),
      prices,
      spend({ session: fig(4n * USD) }),
    );
    expect(d).toMatchObject({ action: 'allow', reason: 'budget-warning', budget: { status: 'warning' } });
  });

  it('no amount set: no note, whatever the spend', () => {
    expect(decide(obs, DEFAULT_POLICY, prices, spend({ session: fig(100n * USD) })).budget).toBeUndefined();
  });

  it('warn mode: would have downshifted, allowed and logged', () => {
    const d: Decision = decide(
      obs,
      policy({ session: '5' }, { mode: 'warn' }),
      prices,
      spend({ session: fig(6n * USD) }),
    );
    expect(d).toMatchObject({ action: 'allow', reason: 'warn-only', budget: { status: 'over' } });
    expect(d.diagnostics).toContain('warn-only: budget-downshifted');
  });

  it('an unreadable spend summary fails open with a diagnostic', () => {
    const d = decide(
      claudeDispatch('claude-opus-5-5', 'haiku'),
      policy({ session: '5' }),
      prices,
      spend({ error: 'spend summary is not JSON' }),
    );
    expect(d).toMatchObject({ action: 'allow', reason: 'within-ceiling', budget: { status: 'unknown' } });
    expect(d.diagnostics).toContain('budgets not checked: spend summary is not JSON');
  });
});
