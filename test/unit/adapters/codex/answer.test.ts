import { describe, expect, it } from 'vitest';
import { answerFor } from '../../../../src/adapters/codex/answer.js';
import type { Decision } from '../../../../src/contracts/decision.js';
import { fixture, hookStdout } from './support.js';

const common = { summary: 's', comparison: null, tier: null, diagnostics: [] };

describe('codex answer: Decision -> native JSON (shapes Codex 0.169.0 acted on)', () => {
  it("allow prints nothing, so Codex's own permission flow is untouched", () => {
    expect(answerFor({ action: 'allow', reason: 'within-ceiling', ...common })).toBeNull();
  });

  it('correct = the rewrite Codex honoured: allow + the whole updatedInput (fixture rewrite-allow)', () => {
    const f = fixture('PreToolUse.rewrite-allow.json');
    const input = f.payload.tool_input as Record<string, unknown>;
    const d: Decision = {
      action: 'correct',
      reason: 'over-ceiling-corrected',
      ...common,
      field: 'model',
      value: 'gpt-6-luna',
      updatedInput: { ...input, model: 'gpt-6-luna' },
    };
    expect(answerFor(d)).toEqual(JSON.parse(hookStdout(f)));
  });

  it('correct never ships without permissionDecision allow (Codex drops it silently: fixture rewrite)', () => {
    const d: Decision = {
      action: 'correct',
      reason: 'over-ceiling-corrected',
      ...common,
      field: 'model',
      value: 'x',
      updatedInput: { task_name: 't', message: 'm', model: 'x' },
    };
    const out = answerFor(d)!;
    expect(out.hookSpecificOutput.permissionDecision).toBe('allow');
    expect(out.hookSpecificOutput.updatedInput).toEqual({ task_name: 't', message: 'm', model: 'x' });
    const ignored = JSON.parse(hookStdout(fixture('PreToolUse.rewrite.json')));
    expect(ignored.hookSpecificOutput.permissionDecision).toBeUndefined();
  });

  it('deny = the shape Codex blocked with (fixture deny), reason without a trailing period', () => {
    const f = fixture('PreToolUse.deny.json');
    const seen = JSON.parse(hookStdout(f));
    const d: Decision = {
      action: 'deny',
      reason: 'over-ceiling-denied',
      ...common,
      message: 'tiergate: too pricey. Retry with model: "gpt-6-luna".',
    };
    const out = answerFor(d)!;
    expect(Object.keys(out.hookSpecificOutput).sort()).toEqual(Object.keys(seen.hookSpecificOutput).sort());
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toBe(
      'tiergate: too pricey. Retry with model: "gpt-6-luna"',
    );
  });
});
