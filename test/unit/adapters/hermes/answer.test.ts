/** What Hermes' plugin is told: the engine's decisions in Hermes' terms (no model argument on delegate_task). */
import { describe, expect, it } from 'vitest';
import { answerFor, hermesText } from '../../../../src/adapters/hermes/answer.js';
import type { Decision } from '../../../../src/contracts/decision.js';

const base = { summary: '', comparison: null, tier: null, diagnostics: [] };

describe('Hermes answers', () => {
  it('allow prints nothing; correct names the model for the middleware', () => {
    expect(answerFor({ action: 'allow', reason: 'within-ceiling', ...base })).toBeNull();
    const correct: Decision = {
      action: 'correct',
      reason: 'over-ceiling-corrected',
      ...base,
      field: 'model',
      value: 'cheap-1',
      updatedInput: {},
    };
    expect(answerFor(correct)).toEqual({ action: 'correct', model: 'cheap-1' });
  });

  it('a denial names the config value to set, not a call argument Hermes lacks', () => {
    const msg =
      'tiergate: agent the requested agent runs on big (from config.yaml delegation.model), which costs more than your own model mid; a subagent may not cost more than its parent. Retry the same dispatch with model: "small" (tier cheap).';
    const out = answerFor({ action: 'deny', reason: 'over-ceiling-denied', ...base, message: msg });
    expect(out).toEqual({
      action: 'block',
      message:
        "tiergate: delegate_task's child runs on big (from config.yaml delegation.model), which costs more than your own model mid; a subagent may not cost more than its parent. Hermes' delegate_task has no model argument, so the same call would be denied again: do the task yourself, or ask the user to set delegation.model: small (tier cheap) in Hermes' config.yaml.",
    });
    expect(hermesText("x. Retry the same dispatch without model, so the child runs on the parent's model.")).toContain(
      'take delegation.model out',
    );
  });
});
