/**
 * Claude Code's in-process hooks module decides through the same decide() (issue 28 item 1b): a budget in the policy
 * hand-off the money type cannot hold (one written by an older tiergate, or by hand) fails open for the budgets only,
 * and the ceiling still corrects an opus child of a sonnet parent. Before, the throw made onSpawn proceed unchanged.
 */
import { describe, expect, it } from 'vitest';
import { POLICY_HANDOFF_FORMAT, ModuleCore } from '../../../../src/adapters/claude/module/core.js';
import { bundledLookup } from '../../../../src/adapters/claude/module/prices.js';
import { DEFAULT_POLICY } from '../../../../src/config/defaults.js';
import type { SpendState } from '../../../../src/routing-engine/budget.js';
import { fixture } from './support.js';

const spend: SpendState = {
  session: { pico: 0n, unknown: 0 },
  day: { pico: 0n, unknown: 0 },
  month: { pico: 0n, unknown: 0 },
  sessionTotal: null,
  error: null,
};
const child = { requestedModel: 'opus', agentModel: null, agentModelFrom: null, rewriteHonoured: true, unknown: null };

function spawnWith(budgets: Record<string, unknown>) {
  const core: ModuleCore = new ModuleCore(() => bundledLookup(core.policy));
  core.sessionId = 'sess-1';
  core.usePolicy(
    JSON.stringify({
      format: POLICY_HANDOFF_FORMAT,
      policy: { ...DEFAULT_POLICY, budgets: { ...DEFAULT_POLICY.budgets, ...budgets } },
    }),
  );
  expect(core.needsSpend()).toBe(true);
  return core.onSpawn(fixture('modules/agent.spawn.parent-sonnet.json'), Date.now(), child, spend);
}

describe('hooks module: a fault in the budget part', () => {
  it('control: a sound budget with nothing spent, the opus child is corrected to sonnet', () => {
    expect(spawnWith({ session: '5' })).toMatchObject({ kind: 'correct', model: 'sonnet' });
  });

  for (const [name, budgets] of [
    ['a 19-decimal session budget', { session: '0.0000000000000000001' }],
    ['warnAt 1e-300', { day: '100', warnAt: 1e-300 }],
  ] as const) {
    it(`${name}: still corrected to sonnet, and recorded as the ceiling's correction`, () => {
      const v = spawnWith(budgets);
      expect(v).toMatchObject({ kind: 'correct', model: 'sonnet' });
      expect(v.record?.type === 'dispatch' && v.record.decision.reason).toBe('over-ceiling-corrected');
    });
  }
});
