/**
 * Ask instead of deny (src/routing-engine/ask.ts through decide, issue 33 item 3): the prompt is set only where the
 * policy asks and someone can answer; the rest of the decision stays the non-ask action; the message states the money.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import type { Policy } from '../../../src/contracts/config.js';
import { DecisionSchema } from '../../../src/contracts/decision.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import type { SpendState } from '../../../src/routing-engine/budget.js';
import { decide } from '../../../src/routing-engine/decide.js';
import { decisionKind } from '../../../src/runtime/decision-record.js';
import { effectiveModel } from '../../../src/runtime/effective-model.js';
import { claudeDispatch, codexDispatch } from './observations.js';
import { testLookup } from './price-table.js';

const prices = testLookup();
const USD = 1_000_000_000_000n;
const policy = (over: Partial<Policy> = {}, budgets: Partial<Policy['budgets']> = {}): Policy => ({
  ...DEFAULT_POLICY,
  ...over,
  budgets: { ...DEFAULT_POLICY.budgets, ...budgets },
});
const spend = (s: Partial<SpendState> = {}): SpendState => ({
  session: { pico: 0n, unknown: 0 },
  day: { pico: 0n, unknown: 0 },
  month: { pico: 0n, unknown: 0 },
  sessionTotal: null,
  error: null,
  ...s,
});
const asking = (obs: DispatchObservation): DispatchObservation => ({ ...obs, canAsk: true });

describe('onOverCeiling ask', () => {
  const opusUnderSonnet = claudeDispatch('claude-sonnet-5-5', 'opus');

  it('someone to ask: the correction stays as the non-ask action, with the prompt over it', () => {
    const d = decide(asking(opusUnderSonnet), policy({ onOverCeiling: 'ask' }), prices, spend({ askBasis: null }));
    expect(DecisionSchema.safeParse(d).success).toBe(true);
    expect(d).toMatchObject({ action: 'correct', value: 'sonnet', ask: { reason: 'over-ceiling-asked' } });
    expect(d.ask!.message).toBe(
      'tiergate asks: subagent model opus costs more than your own model claude-sonnet-5-5. No estimate of its cost: no finished child of this agent type or this session is recorded yet. tiergate would run it on sonnet (tier parent). Approve to run it as asked on opus; refuse to keep the cost down.',
    );
    expect(d.ask!.otherwise).toBe('Retry the same dispatch with model: "sonnet".');
    // Recorded as its own kind, on the model asked for (what runs if the person approves).
    expect(decisionKind(d)).toBe('ask');
    expect(effectiveModel(opusUnderSonnet, d)).toBe('opus');
  });

  it("the estimate: this agent type's median child, re-priced by input rate to the requested and the parent's model", () => {
    // A general-purpose child recorded at $0.10 on haiku ($0.1/M input): opus is 40x ($4/M), sonnet 20x ($2/M).
    const basis = { pico: USD / 10n, model: 'claude-haiku-5-5', from: 'agent' as const, n: 3 };
    const d = decide(asking(opusUnderSonnet), policy({ onOverCeiling: 'ask' }), prices, spend({ askBasis: basis }));
    expect(d.ask!.message).toContain(
      'Estimated cost: about $4.00 on opus against $2.00 on your own model claude-sonnet-5-5 (the median of 3 recorded general-purpose children, served by claude-haiku-5-5; an estimate).',
    );
    const session = decide(
      asking(opusUnderSonnet),
      policy({ onOverCeiling: 'ask' }),
      prices,
      spend({ askBasis: { ...basis, from: 'session', n: 1, model: 'unpriced-model' } }),
    );
    expect(session.ask!.message).toContain(
      "Estimated cost: about $0.1000 (the median of this session's 1 recorded child, served by unpriced-model; an estimate; not re-priced",
    );
  });

  it('no one to ask (headless, or a harness without a prompt path): exactly the decision without ask', () => {
    const withAsk = decide(opusUnderSonnet, policy({ onOverCeiling: 'ask' }), prices);
    const without = decide(opusUnderSonnet, policy(), prices);
    expect(withAsk).toEqual(without);
    expect(withAsk.ask).toBeUndefined();
  });

  it('a denial where the harness takes no rewrite: asked, and its retry is what a model acts on unasked', () => {
    const obs = asking(codexDispatch('gpt-6-sol', 'gpt-6-astra'));
    const d = decide(obs, policy({ onOverCeiling: 'ask' }), prices);
    expect(d).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied', ask: { reason: 'over-ceiling-asked' } });
    expect(d.ask!.otherwise).toBe(d.action === 'deny' ? d.message : '');
    expect(d.ask!.message).toContain('tiergate would have it retried on the parent tier.');
  });

  it('within the ceiling, or policy correct: nothing asked', () => {
    expect(
      decide(asking(claudeDispatch('claude-opus-5-5', 'haiku')), policy({ onOverCeiling: 'ask' }), prices).ask,
    ).toBeUndefined();
    expect(decide(asking(opusUnderSonnet), policy(), prices).ask).toBeUndefined();
  });

  it('warn mode allows and asks nothing', () => {
    const d = decide(asking(opusUnderSonnet), policy({ onOverCeiling: 'ask', mode: 'warn' }), prices);
    expect(d).toMatchObject({ action: 'allow', reason: 'warn-only' });
    expect(d.ask).toBeUndefined();
  });
});

describe('budgets.action ask', () => {
  const haikuUnderOpus = claudeDispatch('claude-opus-5-5', 'haiku');
  const over = spend({ day: { pico: 2n * USD, unknown: 0 }, askBasis: null });

  it('past a budget, someone to ask: the budget denial is the non-ask action, the prompt names the budget', () => {
    const d = decide(asking(haikuUnderOpus), policy({}, { day: '1', action: 'ask' }), prices, over);
    expect(d).toMatchObject({ action: 'deny', reason: 'budget-denied', ask: { reason: 'budget-asked' } });
    expect(d.ask!.message).toMatch(
      /^tiergate asks: the daily budget of \$1 \(\$2\.00 spent\) is spent\. No estimate of its cost: .* tiergate would refuse it\. Approve to run it as asked on haiku; refuse to keep the cost down\.$/,
    );
  });

  it('no one to ask: denied, naming the budget (the safe fallback; never the downshift)', () => {
    const d = decide(haikuUnderOpus, policy({}, { day: '1', action: 'ask' }), prices, over);
    expect(d).toMatchObject({ action: 'deny', reason: 'budget-denied' });
    expect(d.ask).toBeUndefined();
  });

  it('within the budgets: nothing asked', () => {
    const d = decide(asking(haikuUnderOpus), policy({}, { day: '5', action: 'ask' }), prices, spend());
    expect(d.action).toBe('allow');
    expect(d.ask).toBeUndefined();
  });

  it('past a budget at a fan-out limit: the limit refuses, nothing asked (an approved ask would have run past the limit)', () => {
    const p = policy({ limits: { concurrentSubagents: 1 } }, { day: '1', action: 'ask' });
    const atLimit = { ...over, fanout: { running: 1, started: 1 } };
    const d = decide(asking(haikuUnderOpus), p, prices, atLimit);
    expect(d).toMatchObject({ action: 'deny', reason: 'limit-denied' });
    expect(d.ask).toBeUndefined();
    // Under the limit it is asked; with no one to ask the budget's own denial stands, as without a limit.
    expect(decide(asking(haikuUnderOpus), p, prices, { ...over, fanout: { running: 0, started: 1 } })).toMatchObject({
      reason: 'budget-denied',
      ask: { reason: 'budget-asked' },
    });
    expect(decide(haikuUnderOpus, p, prices, atLimit)).toMatchObject({ action: 'deny', reason: 'budget-denied' });
  });

  it('a fan-out limit is never asked about', () => {
    const d = decide(
      asking(haikuUnderOpus),
      policy({ onOverCeiling: 'ask', limits: { concurrentSubagents: 1 } }, { action: 'ask' }),
      prices,
      spend({ fanout: { running: 1, started: 1 } }),
    );
    expect(d.reason).toBe('limit-denied');
    expect(d.ask).toBeUndefined();
  });
});

describe('a fault in the ask or in the money line', () => {
  const opusUnderSonnet = claudeDispatch('claude-sonnet-5-5', 'opus');
  /** A spend whose `field` throws when read: what a corrupt spend summary could hand the engine. */
  const faulty = (field: 'askBasis' | 'session' | 'fanout'): SpendState => {
    const s = spend();
    Object.defineProperty(s, field, {
      get() {
        throw new Error(`${field} unreadable`);
      },
    });
    return s;
  };

  it('the ask fails open to the non-ask action: the over-ceiling child is still corrected, never allowed', () => {
    const d = decide(asking(opusUnderSonnet), policy({ onOverCeiling: 'ask' }), prices, faulty('askBasis'));
    expect(d).toMatchObject({ action: 'correct', value: 'sonnet' });
    expect(d.ask).toBeUndefined();
    expect(d.diagnostics.join('\n')).toContain('not asked: askBasis unreadable');
  });

  it('an ask-able over-ceiling denial meets the limits (limits.ts raisedAsk): a fault or an unreadable count there keeps it denied, never allowed', () => {
    const obs = asking(codexDispatch('gpt-6-sol', 'gpt-6-astra'));
    const p = policy({ onOverCeiling: 'ask', limits: { ...DEFAULT_POLICY.limits, concurrentSubagents: 1 } });
    const thrown = decide(obs, p, prices, faulty('fanout'));
    expect(thrown).toMatchObject({
      action: 'deny',
      reason: 'over-ceiling-denied',
      ask: { reason: 'over-ceiling-asked' },
    });
    expect(thrown.diagnostics.join('\n')).toContain('limits not checked: fanout unreadable');
    const unread = decide(obs, p, prices, spend({ error: 'spend summary is malformed' }));
    expect(unread).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied' });
    expect(unread.diagnostics).toContain('limits not checked: spend summary is malformed');
    // At the limit it is the limit's denial, never asked about: still no child runs unasked.
    const atLimit = decide(obs, p, prices, spend({ fanout: { running: 1, started: 1 } }));
    expect(atLimit).toMatchObject({ action: 'deny', reason: 'limit-denied' });
    expect(atLimit.ask).toBeUndefined();
  });

  it("the money line fails open to the ceiling's own denial: still denied, the retry kept", () => {
    const obs = codexDispatch('gpt-6-sol', 'gpt-6-astra');
    const plain = decide(obs, policy(), prices);
    const d = decide(obs, policy({}, { day: '1' }), prices, faulty('session'));
    expect(d).toMatchObject({
      action: 'deny',
      reason: 'over-ceiling-denied',
      message: plain.action === 'deny' ? plain.message : '',
    });
    expect(d.diagnostics).toEqual(['money not stated: session unreadable']);
  });
});
