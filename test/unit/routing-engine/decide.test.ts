import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { childOf, decide } from '../../../src/routing-engine/decide.js';
import { comparePrices } from '../../../src/routing-engine/compare.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import { DecisionSchema } from '../../../src/contracts/decision.js';
import type { Policy } from '../../../src/contracts/config.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { testLookup, ROWS } from './price-table.js';
import { claudeDispatch, codexDispatch, opencodeDispatch } from './observations.js';

const prices = testLookup();
const policy = (over: Partial<Policy> = {}): Policy => ({ ...DEFAULT_POLICY, ...over });

describe('decide: Claude (rewrite to aliases only)', () => {
  it("corrects opus under a sonnet parent to the parent's own alias, carrying the whole input", () => {
    const obs = claudeDispatch('claude-sonnet-5-5', 'opus');
    const d = decide(obs, policy(), prices);
    expect(d.action).toBe('correct');
    if (d.action !== 'correct') return;
    expect(d.reason).toBe('over-ceiling-corrected');
    expect(d.value).toBe('sonnet');
    expect(d.tier).toBe('parent');
    expect(d.updatedInput).toEqual({ ...obs.toolInput, model: 'sonnet' });
  });

  it('corrects to the next tier when the parent has no alias (parent priced between tiers)', () => {
    const d = decide(claudeDispatch('gpt-6.1-sol', 'fable'), policy(), prices);
    // gpt-6.1-sol (2/10, cache 0.1) vs sonnet-5-5 (2/10, cache 0.1): equal, so sonnet is the most capable that fits.
    expect(d).toMatchObject({ action: 'correct', value: 'sonnet', tier: 'standard' });
  });

  it('allows a child within the ceiling untouched', () => {
    const d = decide(claudeDispatch('claude-opus-5-5', 'haiku'), policy(), prices);
    expect(d).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
    expect(d.comparison?.verdict).toBe('cheaper');
  });

  it('allows an equal-priced child', () => {
    const d = decide(claudeDispatch('claude-opus-5-5', 'opus'), policy(), prices);
    expect(d).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
    expect(d.comparison?.verdict).toBe('equal');
  });

  it('applies the default tier, capped by the ceiling, when no model is named', () => {
    const big = decide(claudeDispatch('claude-opus-5-5', null), policy(), prices);
    expect(big).toMatchObject({ action: 'correct', reason: 'default-tier-applied', value: 'sonnet' });
    const small = decide(claudeDispatch('claude-haiku-5-5', null), policy(), prices);
    expect(small).toMatchObject({ action: 'correct', reason: 'default-tier-applied', value: 'haiku' });
    const inherit = decide(claudeDispatch('claude-opus-5-5', null), policy({ defaultTier: 'parent' }), prices);
    expect(inherit).toMatchObject({ action: 'allow', reason: 'inherits-parent' });
  });

  it('allows and logs when the parent price is unknown', () => {
    const d = decide(claudeDispatch(null, 'opus'), policy(), prices);
    expect(d).toMatchObject({ action: 'allow', reason: 'unknown-price-allowed' });
    expect(d.diagnostics.join(' ')).toMatch(/no price for parent/);
  });

  it('denies unknown prices only when the policy opts in', () => {
    const d = decide(claudeDispatch('claude-opus-5-5', 'mystery-model'), policy({ unknownPrice: 'deny' }), prices);
    expect(d).toMatchObject({ action: 'deny', reason: 'unknown-price-denied' });
    if (d.action === 'deny') expect(d.message).toMatch(/Retry the same dispatch with model: "opus"/);
  });

  it('warn mode allows what it would have corrected, and says so', () => {
    const d = decide(claudeDispatch('claude-sonnet-5-5', 'opus'), policy({ mode: 'warn' }), prices);
    expect(d).toMatchObject({ action: 'allow', reason: 'warn-only' });
    expect(d.diagnostics).toContain('warn-only: over-ceiling-corrected');
  });

  it('off mode checks nothing', () => {
    expect(decide(claudeDispatch('claude-haiku-5-5', 'fable'), policy({ mode: 'off' }), prices)).toMatchObject({
      action: 'allow',
      reason: 'guard-off',
      comparison: null,
    });
  });
});

/** A Claude dispatch of a custom agent whose definition names a model (`.claude/agents/<name>.md`). */
const claudeAgent = (parent: string, agentModel: string | null, model: string | null = null): DispatchObservation => ({
  ...claudeDispatch(parent, model),
  subagentType: 'deep-review',
  agentModel,
  agentModelFrom: agentModel ? '.claude/agents/deep-review.md' : null,
  toolInput: { description: 'd', prompt: 'p', subagent_type: 'deep-review', ...(model ? { model } : {}) },
});

describe('decide: the model the child really runs on (agent definitions)', () => {
  it("leaves an agent on a cheaper model alone: the default tier never overwrites an agent's own model", () => {
    const d = decide(claudeAgent('claude-opus-5-5', 'haiku'), policy(), prices);
    expect(d).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
    expect(d.summary).toMatch(/agent deep-review runs on haiku/);
    // premium as the default tier must not lift it either
    expect(decide(claudeAgent('claude-opus-5-5', 'haiku'), policy({ defaultTier: 'premium' }), prices).action).toBe(
      'allow',
    );
  });

  it('corrects an agent on a pricier model down to the parent, naming the agent', () => {
    const d = decide(claudeAgent('claude-sonnet-5-5', 'opus'), policy(), prices);
    expect(d).toMatchObject({ action: 'correct', reason: 'over-ceiling-corrected', value: 'sonnet' });
    expect(d.summary).toMatch(/agent deep-review runs on opus, which costs more than the parent claude-sonnet-5-5/);
    if (d.action === 'correct')
      expect(d.updatedInput).toEqual({ description: 'd', prompt: 'p', subagent_type: 'deep-review', model: 'sonnet' });
  });

  it('denies it with a retry that names the agent and where its model came from, where no rewrite is possible', () => {
    const obs = claudeAgent('claude-sonnet-5-5', 'opus');
    const d = decide(
      { ...obs, capability: { ...obs.capability, canRewrite: false, rewriteField: null } },
      policy(),
      prices,
    );
    expect(d.action).toBe('deny');
    if (d.action === 'deny') {
      expect(d.message).toMatch(
        /^tiergate: agent deep-review runs on opus \(from \.claude\/agents\/deep-review\.md\), which costs more than your own model claude-sonnet-5-5/,
      );
      expect(d.message).toMatch(/Retry the same dispatch with model: "sonnet"/);
    }
  });

  it("the call's model outranks the agent's; inherit (no agent model) gets the default tier, downward only", () => {
    expect(childOf(claudeAgent('claude-opus-5-5', 'haiku', 'opus'), policy())).toEqual({
      model: 'opus',
      source: 'call',
    });
    expect(childOf(claudeAgent('claude-opus-5-5', 'haiku'), policy())).toEqual({ model: 'haiku', source: 'agent' });
    expect(childOf(claudeAgent('claude-opus-5-5', null), policy())).toEqual({ model: null, source: 'inherited' });
    expect(decide(claudeAgent('claude-opus-5-5', null), policy(), prices)).toMatchObject({
      action: 'correct',
      reason: 'default-tier-applied',
      value: 'sonnet',
    });
    // a haiku parent: the standard tier (sonnet) would be a raise, so the default tier steps down to haiku
    expect(decide(claudeAgent('claude-haiku-5-5', null), policy(), prices)).toMatchObject({ value: 'haiku' });
  });
});

describe('decide: Codex (deny-with-retry by default)', () => {
  it('denies an over-ceiling spawn with a retry naming a legal cheaper model', () => {
    const d = decide(codexDispatch('gpt-6-sol', 'gpt-6-astra'), policy(), prices);
    expect(d.action).toBe('deny');
    if (d.action !== 'deny') return;
    expect(d.reason).toBe('over-ceiling-denied');
    expect(d.message).toContain('gpt-6-astra costs more than your own model gpt-6-sol');
    expect(d.message).toContain('(input $10/M vs $2/M)');
    expect(d.message).toContain('Retry the same dispatch with model: "gpt-6-sol" (tier parent).');
  });

  it('corrects instead when the rewrite is enabled', () => {
    const d = decide(codexDispatch('gpt-6-sol', 'gpt-6-astra', true), policy({ codexRewrite: true }), prices);
    expect(d).toMatchObject({
      action: 'correct',
      value: 'gpt-6-sol',
      updatedInput: { task_name: 'demo_child', model: 'gpt-6-sol' },
    });
  });

  it('allows a cheaper child', () => {
    expect(decide(codexDispatch('gpt-6-astra', 'gpt-6-luna'), policy(), prices)).toMatchObject({
      action: 'allow',
      reason: 'within-ceiling',
    });
  });

  it('treats per-request fees as not comparable, allowed by default', () => {
    expect(decide(codexDispatch('gpt-6-astra', 'fee-model'), policy(), prices)).toMatchObject({
      action: 'allow',
      reason: 'not-comparable',
    });
  });
});

describe('decide: agent-routed harness (OpenCode)', () => {
  const candidates = [
    { value: 'cheap', model: 'gpt-6-luna', tier: 'cheap' as const },
    { value: 'standard', model: 'gpt-6-sol', tier: 'standard' as const },
  ];
  it('corrects an over-ceiling agent to the best tier agent within the ceiling', () => {
    const d = decide(opencodeDispatch('gpt-6-sol', 'pricey', 'gpt-6-astra', candidates), policy(), prices);
    expect(d).toMatchObject({ action: 'correct', field: 'subagent_type', value: 'standard', tier: 'standard' });
  });
  it('denies when no tier agent fits under the parent', () => {
    const d = decide(
      opencodeDispatch('fee-free-tiny', 'pricey', 'gpt-6-astra', []),
      policy(),
      testLookup({
        'fee-free-tiny': {
          ...ROWS['gpt-6-luna']!,
          id: 'fee-free-tiny',
          rates: { input: '0.01', output: '0.01', cacheRead: '0.001', cacheWrite5m: null, cacheWrite1h: null },
        },
      }),
    );
    expect(d.action).toBe('deny');
    if (d.action === 'deny')
      expect(d.message).toMatch(/Retry the same dispatch with an agent that runs on a model no pricier/);
  });
  it('leaves an agent with no known model alone (a tier agent could cost more), denying only when unknown prices deny', () => {
    const d = decide(opencodeDispatch('gpt-6-sol', 'nonexistent', null, candidates), policy(), prices);
    expect(d).toMatchObject({ action: 'allow', reason: 'unknown-tier' });
    expect(d.diagnostics.join(' ')).toMatch(/agent 'nonexistent' runs on a model tiergate cannot tell/);
    const strict = decide(
      opencodeDispatch('gpt-6-sol', 'nonexistent', null, candidates),
      policy({ unknownPrice: 'deny' }),
      prices,
    );
    expect(strict).toMatchObject({ action: 'deny', reason: 'unknown-price-denied' });
    if (strict.action === 'deny')
      expect(strict.message).toMatch(/Retry the same dispatch with subagent_type: "standard"/);
  });
});

describe('comparison', () => {
  it('a crossover (cheaper input, pricier output) is pricier', () => {
    const c = comparePrices(prices.resolve('sonnet', 'claude'), prices.resolve('cross-model', 'claude'), 'd');
    expect(c.verdict).toBe('pricier');
    expect(c.points.filter((p) => p.order === 'pricier').map((p) => p.kind)).toEqual(['output']);
  });
  it('compares at every long-context threshold either model has', () => {
    // haiku-5-5 goes to 0.5/2.5 above 100K prompt tokens; gpt-6-luna (0.1/0.5) does not.
    const c = comparePrices(prices.resolve('gpt-6-luna', 'codex'), prices.resolve('haiku', 'claude'), 'd');
    expect(c.points.map((p) => p.atPromptTokens)).toContain(100_001);
    expect(c.verdict).toBe('pricier');
  });
  it('missing cache rates default to multiples of input', () => {
    const c = comparePrices(prices.resolve('gpt-6-sol', 'codex'), prices.resolve('gpt-6-luna', 'codex'), 'd');
    const w = c.points.find((p) => p.kind === 'cacheWrite5m' && p.atPromptTokens === 0)!;
    expect([w.parent, w.child]).toEqual(['2.5', '0.125']);
  });
});

describe('properties', () => {
  const ids = Object.keys(ROWS);
  const aliases = ['haiku', 'sonnet', 'opus', 'fable'];
  it('the ceiling never lets a strictly pricier child through (mode on)', () => {
    let pricier = 0;
    let corrected = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...ids),
        fc.constantFrom(...ids, ...aliases),
        fc.boolean(),
        (parent, child, rewrite) => {
          const obs = codexDispatch(parent, child, rewrite);
          const d = decide(obs, policy({ codexRewrite: rewrite }), prices);
          expect(DecisionSchema.safeParse(d).success).toBe(true);
          const cmp = comparePrices(prices.resolve(parent, 'codex'), prices.resolve(child, 'codex'), 'd');
          if (cmp.verdict === 'pricier') {
            pricier += 1;
            expect(d.action).not.toBe('allow');
            if (d.action === 'correct') {
              corrected += 1;
              const after = comparePrices(prices.resolve(parent, 'codex'), prices.resolve(d.value, 'codex'), 'd');
              expect(['cheaper', 'equal']).toContain(after.verdict);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
    // Both checks ran on enough cases to mean something (a generator of cheaper children would pass vacuously).
    expect(pricier).toBeGreaterThan(80);
    expect(corrected).toBeGreaterThan(30);
  });

  it('never makes a child run on a pricier model than it would have run on without tiergate', () => {
    // Any policy (mode, default tier, unknown prices, tier maps), any agent definition and any call: a correction's
    // model is priced at or below the model the child would have run on (call > agent > parent).
    const model = fc.constantFrom(...ids, ...aliases, 'mystery-model');
    const tierMap = fc.record(
      {
        cheap: fc.option(model, { nil: undefined }),
        standard: fc.option(model, { nil: undefined }),
        premium: fc.option(model, { nil: undefined }),
        parent: fc.option(model, { nil: undefined }),
      },
      { requiredKeys: [] },
    );
    let corrections = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...ids, 'mystery-model', null),
        fc.option(fc.constantFrom(...aliases), { nil: null }),
        fc.option(model, { nil: null }),
        fc.boolean(),
        tierMap,
        fc.constantFrom<Policy['defaultTier']>('cheap', 'standard', 'premium', 'parent'),
        fc.constantFrom<Policy['unknownPrice']>('allow', 'deny'),
        fc.constantFrom<Policy['mode']>('on', 'warn'),
        (parent, call, agentModel, legalOnly, claudeTiers, defaultTier, unknownPrice, mode) => {
          const base = claudeAgent(parent ?? 'mystery-model', agentModel, call);
          const obs = {
            ...base,
            parentModel: parent,
            capability: { ...base.capability, legalValues: legalOnly ? base.capability.legalValues : null },
          };
          const pol = policy({
            defaultTier,
            unknownPrice,
            mode,
            tiers: { ...DEFAULT_POLICY.tiers, claude: claudeTiers },
          });
          const d = decide(obs, pol, prices);
          if (d.action !== 'correct') return;
          corrections += 1;
          const without = obs.requestedModel ?? obs.agentModel ?? obs.parentModel;
          expect(without).not.toBeNull();
          const cmp = comparePrices(prices.resolve(without!, 'claude'), prices.resolve(d.value, 'claude'), 'd');
          expect(['cheaper', 'equal']).toContain(cmp.verdict);
        },
      ),
      { numRuns: 3000 },
    );
    // The check above ran on enough cases to mean something (a generator that never corrects would pass it vacuously).
    expect(corrections).toBeGreaterThan(100);
  });

  it('a correction is always legal for the harness and carries the whole input', () => {
    let corrections = 0;
    fc.assert(
      fc.property(fc.constantFrom(...ids, null), fc.constantFrom(...aliases, ...ids, null), (parent, child) => {
        const obs = claudeDispatch(parent, child);
        const d = decide(obs, policy(), prices);
        if (d.action === 'correct') {
          corrections += 1;
          expect(obs.capability.legalValues).toContain(d.value);
          expect(d.updatedInput).toEqual({ ...obs.toolInput, model: d.value });
        }
      }),
      { numRuns: 500 },
    );
    expect(corrections).toBeGreaterThan(50);
  });
});
