import { describe, expect, it } from 'vitest';
import type { Comparison } from '../../../src/contracts/decision.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { denyMessage } from '../../../src/routing-engine/retry-text.js';

const obs = {
  requestedModel: 'haiku',
  agentModel: null,
  requestedAgent: null,
  requestedTier: null,
  parentModel: 'gpt-6-luna',
  capability: { canRewrite: false, rewriteField: 'model', rewriteKind: 'model', legalValues: null, canDeny: true },
} as unknown as DispatchObservation;
const at = (atPromptTokens: number) =>
  ({
    verdict: 'pricier',
    points: [{ kind: 'output', atPromptTokens, child: '2.5', parent: '0.5', order: 'pricier' }],
  }) as unknown as Comparison;

describe('deny message', () => {
  it('groups a long-context threshold in thousands, as en-US does (without loading ICU)', () => {
    for (const n of [1, 999, 1000, 100_001, 272_000, 1_000_000, 12_345_678]) {
      expect(denyMessage(obs, at(n), null)).toContain(` above ${n.toLocaleString('en-US')} prompt tokens)`);
    }
  });
  it('names both models, the pricier rate and a retry', () => {
    expect(denyMessage(obs, at(0), null)).toBe(
      "tiergate: subagent model haiku costs more than your own model gpt-6-luna (output $2.5/M vs $0.5/M); a subagent may not cost more than its parent. Retry the same dispatch without model, so the child runs on the parent's model.",
    );
  });
});
