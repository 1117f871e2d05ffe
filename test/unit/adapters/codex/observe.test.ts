import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../../src/config/load.js';
import { observeDispatch } from '../../../../src/adapters/codex/observe.js';
import { DispatchObservationSchema } from '../../../../src/contracts/observation.js';
import { fixture, fixtures } from './support.js';

describe('codex observe: every PreToolUse fixture (codex-cli 0.169.0)', () => {
  const all = fixtures('PreToolUse.');
  it('has the recorded fixtures', () => expect(all.length).toBeGreaterThanOrEqual(10));

  for (const f of all) {
    it(f.name, () => {
      const obs = observeDispatch(f.payload, { policy: DEFAULT_POLICY, at: 1 });
      const input = f.payload.tool_input as Record<string, unknown>;
      if (f.payload.tool_name !== 'collaborationspawn_agent') {
        expect(obs).toBeNull();
        return;
      }
      expect(obs).not.toBeNull();
      DispatchObservationSchema.parse(obs);
      expect(obs!.harness).toBe('codex');
      expect(obs!.parentModel).toBe(f.payload.model);
      expect(obs!.parentModelSource).toBe('payload');
      expect(obs!.requestedModel).toBe(input.model ?? null);
      expect(obs!.callId).toBe(f.payload.tool_use_id);
      expect(obs!.sessionId).toBe(f.payload.session_id);
      expect(obs!.toolInput).toEqual(input);
      expect(obs!.capability).toEqual({
        canRewrite: false,
        rewriteField: null,
        rewriteKind: 'model',
        legalValues: null,
        canDeny: true,
      });
    });
  }

  it('the rewrite switch reaches the capability', () => {
    const obs = observeDispatch(fixture('PreToolUse.basic.json').payload, {
      policy: { ...DEFAULT_POLICY, codexRewrite: true },
      at: 5,
    });
    expect(obs!.capability).toMatchObject({ canRewrite: true, rewriteField: 'model' });
    expect(obs!.at).toBe(5);
  });

  it('a tier word in model is a tier, not a model', () => {
    const p = fixture('PreToolUse.basic.json').payload;
    const obs = observeDispatch(
      { ...p, tool_input: { ...(p.tool_input as object), model: 'tier:cheap' } },
      { policy: DEFAULT_POLICY, at: 1 },
    );
    expect(obs!.requestedTier).toBe('cheap');
    expect(obs!.requestedModel).toBeNull();
  });

  it('reads a tier word in any letter case, with or without tier:, and nothing else as one', () => {
    const p = fixture('PreToolUse.basic.json').payload;
    const tierFor = (model: string) =>
      observeDispatch({ ...p, tool_input: { ...(p.tool_input as object), model } }, { policy: DEFAULT_POLICY, at: 1 })!
        .requestedTier;
    for (const [model, tier] of [
      [' Tier:PREMIUM ', 'premium'],
      ['Parent', 'parent'],
      ['STANDARD', 'standard'],
      ['tier:cheap', 'cheap'],
    ] as const)
      expect(tierFor(model)).toBe(tier);
    // Not tiers: a space after the prefix, another prefix, a longer word, a dotted capital I (lower-cases to two characters).
    for (const model of ['tier: cheap', 'tiers:cheap', 'cheaper', 'gpt-6-luna', 'pr\u0130mium', 'tier:'])
      expect(tierFor(model)).toBeNull();
  });

  it('reads an escalation header from the brief', () => {
    const p = fixture('PreToolUse.basic.json').payload;
    const obs = observeDispatch(
      { ...p, tool_input: { ...(p.tool_input as object), message: 'Escalation from cheap: it failed twice' } },
      { policy: DEFAULT_POLICY, at: 1 },
    );
    expect(obs!.escalationFrom).toBe('cheap');
  });

  it('a malformed payload throws (the runner fails open on it)', () => {
    expect(() =>
      observeDispatch({ tool_name: 'collaborationspawn_agent' }, { policy: DEFAULT_POLICY, at: 1 }),
    ).toThrow();
    expect(() => observeDispatch('not an object', { policy: DEFAULT_POLICY, at: 1 })).toThrow();
  });

  it('the parent model is missing -> null, never guessed', () => {
    const { model: _m, ...p } = fixture('PreToolUse.basic.json').payload;
    const obs = observeDispatch(p, { policy: DEFAULT_POLICY, at: 1 });
    expect(obs!.parentModel).toBeNull();
    expect(obs!.parentModelSource).toBeNull();
  });
});
