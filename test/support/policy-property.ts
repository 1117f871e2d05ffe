/**
 * Issue 28 item 1, as a property: random JSON in every key of a project's .tiergate.json never turns an over-ceiling
 * dispatch into an allow. Each case writes the file, loads it over the user's policy as a dispatch does
 * (applyProjectFile over the effective policy: config/runtime.ts) and decides (routing-engine/decide.ts) three
 * over-ceiling dispatches (Claude, Codex, Cursor) against a random spend. A throw anywhere counts as an allow, because
 * that is what the dispatch makes of one (runtime/dispatch.ts: internal-error, allowed). The cases that reached the
 * decision are counted, so a generator that only produced files the loader throws away could not pass.
 * Used by test/unit/config/project-property.test.ts (a quick share) and test/stress/project-property.test.ts (>= 10,000).
 * Reproduce a failure with PROPERTY_SEED=<seed in the suite name>.
 */
import { HARNESS_OPTIONS } from '../../src/descriptors/index.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyProjectFile } from '../../src/config/load.js';
import { PolicySchema, type Policy } from '../../src/contracts/config.js';
import type { Decision } from '../../src/contracts/decision.js';
import { HARNESS_IDS } from '../../src/contracts/harness-ids.js';
import type { DispatchObservation } from '../../src/contracts/observation.js';
import { hasBudget, type SpendState } from '../../src/routing-engine/budget.js';
import { hasLimits } from '../../src/routing-engine/limits.js';
import { decide } from '../../src/routing-engine/decide.js';
import { clearRuntimeCache, loadRuntime, type Runtime } from '../../src/config/runtime.js';
import { claudeDispatch, codexDispatch } from '../unit/routing-engine/observations.js';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261205);
const USD = 1_000_000_000_000n;

/** Over the ceiling with the bundled prices: each child is priced above its parent (the control test checks it). */
const DISPATCHES: DispatchObservation[] = [
  claudeDispatch('claude-sonnet-5-5', 'opus'),
  codexDispatch('gpt-6-luna', 'gpt-6-astra'),
  { ...codexDispatch('claude-haiku-4-5', 'claude-opus-5'), harness: 'cursor', callId: 'toolu_task_1' },
];

/** Money-shaped text and numbers, the values that used to reach the decimal parser unchecked. */
const decimalText = fc
  .tuple(
    fc.oneof({ weight: 3, arbitrary: fc.nat({ max: 1000 }) }, { weight: 1, arbitrary: fc.nat({ max: 2_000_000_000 }) }),
    fc.oneof(
      { weight: 3, arbitrary: fc.nat({ max: 18 }) },
      { weight: 1, arbitrary: fc.integer({ min: 19, max: 400 }) },
    ),
    fc.nat({ max: 9 }),
  )
  .map(([whole, zeros, last]) => (zeros === 0 ? `${whole}` : `${whole}.${'0'.repeat(zeros - 1)}${last}`));
const oddText = fc.constantFrom('1e-30', '-1', 'NaN', 'Infinity', '', '.5', '5.', ' 5', '0x10', '1_000', '٣');
const oddNumber = fc.oneof(
  fc.double(),
  fc.constantFrom(1e-300, 5e-324, 1e308, -0, 1.5e-18, 1e-18, 0.8, 1, 65535, 65536, 1, 0),
  fc.integer(),
);
const modelish = fc.constantFrom('opus', 'sonnet', 'haiku', 'fable', 'claude-opus-5-5', 'gpt-6-astra', 'gpt-6-luna');
const leaf = fc.oneof(
  { weight: 3, arbitrary: decimalText },
  { weight: 2, arbitrary: oddText },
  { weight: 3, arbitrary: oddNumber },
  { weight: 2, arbitrary: modelish },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

// The shared sections and the keys harnesses own (HarnessDescriptor.options: codexRewrite, claudeProvider).
type Shape = (typeof PolicySchema)['shape'] & Record<string, unknown>;
const SECTIONS = [...Object.keys(PolicySchema.shape), ...Object.keys(HARNESS_OPTIONS)] as (keyof Shape)[];
/** A section's own field names (an object section), so random values land on the keys the loader reads. */
function fieldsOf(section: keyof Shape): string[] {
  const s = (PolicySchema.shape as Shape)[section] as unknown as { shape?: Record<string, unknown> } | undefined;
  if (!s) return [];
  return s.shape ? Object.keys(s.shape) : [];
}
const ENUMS: Partial<Record<keyof Shape, unknown[]>> = {
  mode: ['on', 'warn', 'off'],
  unknownPrice: ['allow', 'deny'],
  defaultTier: ['cheap', 'standard', 'premium', 'parent'],
  onIgnoredRewrite: ['correct', 'deny'],
  ...Object.fromEntries(Object.entries(HARNESS_OPTIONS).map(([k, o]) => [k, [...o.values]])),
};

/** Values a field's own type could take (valid or just past a limit), so a fair share of the files tighten something. */
const PLAUSIBLE: Record<string, fc.Arbitrary<unknown>> = {
  session: decimalText,
  day: decimalText,
  month: decimalText,
  sessionTotal: decimalText,
  action: fc.constantFrom('downshift', 'deny', 'stop'),
  warnAt: fc.oneof(fc.double({ min: 0, max: 1.5, noNaN: true }), oddNumber),
  concurrentSubagents: fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constantFrom(0, 1.5, 10_000, 10_001)),
  subagentsPerSession: fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constantFrom(0, 1.5, 1_000_000, 1_000_001)),
  tailBytes: fc.oneof(fc.integer({ min: -1, max: 300 * 1024 * 1024 }), fc.constantFrom(1, 65535, 65536, 4194304)),
};
const fieldValue = (field: string): fc.Arbitrary<unknown> =>
  PLAUSIBLE[field] ? fc.oneof({ weight: 4, arbitrary: PLAUSIBLE[field]! }, { weight: 1, arbitrary: leaf }) : leaf;

function sectionValue(section: keyof Shape): fc.Arbitrary<unknown> {
  const random = fc.jsonValue({ maxDepth: 3 });
  if (ENUMS[section]) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ENUMS[section]!) }, random, leaf);
  if (section === 'tiers') {
    const map = fc.dictionary(fc.constantFrom('cheap', 'standard', 'premium', 'parent', 'other'), leaf, { maxKeys: 4 });
    return fc.oneof(fc.dictionary(fc.constantFrom(...HARNESS_IDS, 'nope'), map, { maxKeys: 3 }), random);
  }
  if (section === 'priceOverrides') {
    const rates = fc.dictionary(fc.constantFrom('input', 'output', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h'), leaf);
    return fc.oneof(fc.dictionary(modelish, rates, { maxKeys: 3 }), random);
  }
  const fields = fieldsOf(section);
  if (fields.length > 0)
    return fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .uniqueArray(fc.constantFrom(...fields, 'extra'), { minLength: 1, maxLength: 3 })
          .chain((keys) => fc.record(Object.fromEntries(keys.map((k) => [k, fieldValue(k)])))),
      },
      { weight: 1, arbitrary: random },
    );
  return fc.oneof(fc.array(leaf, { maxLength: 3 }), random);
}

/** A project file: mostly an object over the policy's own keys, sometimes any JSON at all. */
const projectFile: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc
      .uniqueArray(
        fc.oneof(
          // The sections that reach the budget part and the tail, more often: issue 28's holes were there.
          { weight: 2, arbitrary: fc.constantFrom<string>('budgets', 'observer') },
          { weight: 3, arbitrary: fc.constantFrom<string>(...SECTIONS, '$schema', 'unknownKey') },
        ),
        { minLength: 1, maxLength: 6 },
      )
      .chain((keys) =>
        fc.record(
          Object.fromEntries(
            keys.map((k) => [k, (SECTIONS as string[]).includes(k) ? sectionValue(k as keyof Shape) : leaf]),
          ),
        ),
      ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

const figure = fc.record({ pico: fc.bigInt({ min: 0n, max: 100n * USD }), unknown: fc.nat({ max: 3 }) });
const spendState: fc.Arbitrary<SpendState> = fc.record({
  session: fc.option(figure),
  day: figure,
  month: figure,
  sessionTotal: fc.option(fc.oneof(decimalText, oddText)),
  error: fc.option(fc.constantFrom('spend summary unreadable'), { freq: 8 }),
  // This session's children as the reservation lock counted them (absent: the harness reports no child's end).
  fanout: fc.option(fc.record({ running: fc.nat({ max: 12 }), started: fc.nat({ max: 12 }) }), { nil: undefined }),
});

/** The user: budgets of every kind near the spend, or none (then only a project's own budget can be checked). */
const USERS: { name: string; file: Record<string, unknown> }[] = [
  {
    name: 'budgets',
    file: { budgets: { session: '5', day: '40', month: '400', sessionTotal: '10', action: 'downshift', warnAt: 0.8 } },
  },
  { name: 'limits', file: { limits: { concurrentSubagents: 3, subagentsPerSession: 10 } } },
  { name: 'no budget', file: {} },
];

function runtimeFor(file: Record<string, unknown>): { rt: Runtime; env: Record<string, string>; repo: string } {
  const home = mkdtempSync(join(tmpdir(), 'tg-property-'));
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify(file));
  const env = { TIERGATE_HOME: home, TIERGATE_PRICE_REFRESH: 'off' };
  const repo = join(home, 'cloned-repo');
  mkdirSync(repo);
  clearRuntimeCache();
  return { rt: loadRuntime(env, null), env, repo };
}

/** What the dispatch makes of it: the decision, or (any throw) the internal-error allow runtime/dispatch.ts gives. */
function dispatchOutcome(
  rt: Runtime,
  env: Record<string, string>,
  repo: string,
  obs: DispatchObservation,
  spend: SpendState,
): { decision: Decision; policy: Policy | null; judged: boolean } {
  try {
    const loaded = applyProjectFile(rt.policy, repo, env);
    const policy = loaded?.policy ?? rt.policy;
    // A key that passed validation and was judged by its project rule (applied or not): the file got past the loader.
    const judged = !!loaded?.project.effects.some((e) => e.why !== 'invalid' && e.why !== 'unknown key');
    // An untrusted project cannot reprice (config/project-layer.ts), so the user's lookup is the one a dispatch uses.
    if (policy.priceOverrides !== rt.policy.priceOverrides || policy.claudeProvider !== rt.policy.claudeProvider)
      throw new Error('an untrusted project changed what prices apply');
    const counted = hasBudget(policy.budgets) || hasLimits(policy.limits);
    const decision = decide({ ...obs, cwd: repo }, policy, rt.prices, counted ? spend : undefined);
    return { decision, policy, judged };
  } catch (err) {
    return {
      decision: {
        action: 'allow',
        reason: 'internal-error',
        summary: String(err),
        comparison: null,
        tier: null,
        diagnostics: [],
      },
      policy: null,
      judged: false,
    };
  }
}

export function projectPropertySuite(total: number): void {
  const TOTAL = Number(process.env.PROPERTY_CASES ?? total);
  describe(`random project files never allow an over-ceiling dispatch: ${TOTAL} cases (seed ${SEED})`, () => {
    for (const user of USERS) {
      it(`user with ${user.name}`, () => {
        const { rt, env, repo } = runtimeFor(user.file);
        expect(rt.policyDiagnostics).toEqual([]);
        // Control: without a project file each dispatch is over the ceiling, so not allowed.
        for (const obs of DISPATCHES) expect(decide(obs, rt.policy, rt.prices).action).not.toBe('allow');

        let reached = 0;
        let budgetChecked = 0;
        let limitsChecked = 0;
        let changed = 0;
        let judged = 0;
        const cases = Math.ceil(TOTAL / USERS.length);
        fc.assert(
          fc.property(projectFile, spendState, (project, spend) => {
            writeFileSync(join(repo, '.tiergate.json'), JSON.stringify(project) ?? 'null');
            let caseReached = true;
            for (const obs of DISPATCHES) {
              const outcome = dispatchOutcome(rt, env, repo, obs, spend);
              const { decision, policy } = outcome;
              if (decision.action === 'allow')
                throw new Error(`${obs.harness}: allowed (${decision.reason}: ${decision.summary})`);
              if (policy === null) caseReached = false;
              else if (obs.harness === 'claude') {
                if (hasBudget(policy.budgets)) budgetChecked++;
                if (hasLimits(policy.limits)) limitsChecked++;
                if (outcome.judged) judged++;
                if (JSON.stringify(policy) !== JSON.stringify(rt.policy)) changed++;
              }
            }
            if (caseReached) reached++;
          }),
          { numRuns: cases, seed: SEED + USERS.indexOf(user) },
        );
        // Every case reached the decision (a throw already failed above), and the files were not all thrown away by
        // the loader: most had a key that passed validation and was judged, a real share changed the policy, and the
        // budget part ran (with the user's budgets, or a budget the project added where the user has none).
        console.log(
          `${user.name}: ${cases} cases, ${reached} decided, ${judged} with a key judged, ${changed} changed the policy, ${budgetChecked} with budgets, ${limitsChecked} with limits`,
        );
        expect(reached).toBe(cases);
        expect(judged / cases).toBeGreaterThanOrEqual(0.5);
        expect(changed / cases).toBeGreaterThanOrEqual(0.1);
        expect(budgetChecked / cases).toBeGreaterThanOrEqual(user.name === 'budgets' ? 0.99 : 0.05);
        // The limits part ran (the user's limits, or limits a project added) with a random count of running children.
        expect(limitsChecked / cases).toBeGreaterThanOrEqual(user.name === 'limits' ? 0.99 : 0.01);
      });
    }
  });
}
