import { describe, expect, it } from 'vitest';
import { applyDecision } from '../../../../src/adapters/opencode/apply.js';
import {
  completionObservation,
  correctionProblem,
  countAssistantMessages,
  readAfter,
  usageFromTokens,
} from '../../../../src/adapters/opencode/complete.js';
import { observeDispatch, readChatParams, readConfig } from '../../../../src/adapters/opencode/observe.js';
import { extractEscalation as escalationFrom } from '../../../../src/observer/outcome.js';
import { OpencodeState } from '../../../../src/adapters/opencode/state.js';
import { injectTierAgents } from '../../../../src/adapters/opencode/tier-agents.js';
import { tierOfAgent } from '../../../../src/adapters/tier-agents.js';
import { fixture, policyWith, realRoute } from '../../support/in-process.js';

const f = (name: string) => fixture('opencode', name);

function primed(): OpencodeState {
  const s = new OpencodeState();
  readConfig(f('config.observe.json'), s);
  return s;
}

describe('OpenCode parent model from chat.params', () => {
  it('skips the title request that carries the parent sessionID with the small model', () => {
    const s = primed();
    const title = f('chat.params.observe-title.json');
    readChatParams(title.input, s, 1);
    expect(s.sessionModel(title.input.sessionID)).toBeUndefined();
    readChatParams(f('chat.params.observe-parent.json').input, s, 2);
    expect(s.sessionModel(title.input.sessionID)).toMatchObject({ model: 'fake/parent', agent: 'build' });
    // A later title request must not overwrite it either.
    readChatParams(title.input, s, 3);
    expect(s.sessionModel(title.input.sessionID)?.model).toBe('fake/parent');
  });
});

describe('OpenCode dispatch observation', () => {
  it('reads the agent model from the live config and the parent from chat.params', () => {
    const s = primed();
    readChatParams(f('chat.params.observe-parent.json').input, s, 1);
    const before = f('tool.execute.before.observe.json');
    const obs = observeDispatch(before.input, before.output, s, 10, '/p')!;
    expect(obs).toMatchObject({
      harness: 'opencode',
      callId: 'call_fake_2',
      requestedAgent: 'pricey',
      agentModel: 'fake/big',
      parentModel: 'fake/parent',
      parentModelSource: 'chat.params',
      requestedModel: null,
    });
    expect(obs.capability).toMatchObject({ canRewrite: true, rewriteField: 'subagent_type', rewriteKind: 'agent' });
    expect(obs.toolInput).toEqual(before.output.args);
    expect(obs.toolInput).not.toBe(before.output.args);
  });

  it('falls back to the configured default model when no chat.params was seen', () => {
    const before = f('tool.execute.before.observe.json');
    const obs = observeDispatch(before.input, before.output, primed(), 10, null)!;
    expect(obs).toMatchObject({ parentModel: 'fake/parent', parentModelSource: 'config' });
  });

  it('built-in general inherits the parent; an unknown agent has no model', () => {
    const s = primed();
    const g = f('tool.execute.before.builtin-general.json');
    expect(observeDispatch(g.input, g.output, s, 1, null)?.agentModel).toBe('fake/parent');
    const u = f('tool.execute.before.unknown-agent.json');
    expect(observeDispatch(u.input, u.output, s, 1, null)?.agentModel).toBeNull();
  });

  it('ignores other tools and malformed payloads', () => {
    const s = primed();
    expect(observeDispatch({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: {} }, s, 1, null)).toBeNull();
    expect(observeDispatch({ tool: 'task' }, { args: 'x' }, s, 1, null)).toBeNull();
    expect(observeDispatch(null, null, s, 1, null)).toBeNull();
  });

  it('reads an escalation header from the brief', () => {
    expect(escalationFrom('Escalation from cheap: tests still fail')).toBe('cheap');
    expect(escalationFrom('do it')).toBeNull();
  });
});

describe('OpenCode tier agents', () => {
  it('injects the mapped tiers plus tiergate-parent, keeps foreign and existing agents', () => {
    const cfg = {
      agent: { pricey: { model: 'fake/big' }, 'tiergate-cheap': { model: 'mine/own' } } as Record<string, any>,
    };
    const added = injectTierAgents(cfg, policyWith({ cheap: 'fake/small', standard: 'fake/parent' }));
    expect(added.sort()).toEqual(['tiergate-parent', 'tiergate-standard']);
    expect(cfg.agent['tiergate-cheap'].model).toBe('mine/own');
    expect(cfg.agent['tiergate-standard']).toMatchObject({ mode: 'subagent', model: 'fake/parent' });
    expect(cfg.agent['tiergate-parent'].model).toBeUndefined();
    expect(cfg.agent.pricey.model).toBe('fake/big');
  });

  it('adds nothing when the policy maps no OpenCode tier', () => {
    const cfg: { agent?: Record<string, any> } = {};
    expect(injectTierAgents(cfg, policyWith({}))).toEqual([]);
    expect(cfg.agent).toBeUndefined();
  });

  it('names tiers', () => {
    expect(tierOfAgent('tiergate-premium')).toBe('premium');
    expect(tierOfAgent('tiergate-gold')).toBeNull();
    expect(tierOfAgent('cheap')).toBeNull();
  });
});

describe('OpenCode decision through the real engine', () => {
  const policy = policyWith({ cheap: 'fake/small' });
  function setup() {
    const s = new OpencodeState();
    const cfg = f('config.observe.json');
    injectTierAgents(cfg, policy);
    readConfig(cfg, s);
    readChatParams(f('chat.params.observe-parent.json').input, s, 1);
    return s;
  }

  it('corrects pricey (fake/big over fake/parent) by mutating args in place to the parent tier agent', () => {
    const before = f('tool.execute.before.observe.json');
    const args = before.output.args;
    const obs = observeDispatch(before.input, before.output, setup(), 1, null)!;
    const d = realRoute(policy)(obs);
    expect(d).toMatchObject({
      action: 'correct',
      field: 'subagent_type',
      value: 'tiergate-parent',
      reason: 'over-ceiling-corrected',
    });
    expect(applyDecision(d, before.output)).toMatchObject({ kind: 'mutated', from: 'pricey', to: 'tiergate-parent' });
    expect(before.output.args).toBe(args);
    expect(args.subagent_type).toBe('tiergate-parent');
  });

  it('leaves a within-ceiling agent alone', () => {
    const before = f('tool.execute.before.observe.json');
    before.output.args.subagent_type = 'cheap';
    const obs = observeDispatch(before.input, before.output, setup(), 1, null)!;
    const d = realRoute(policy)(obs);
    expect(d).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
    expect(applyDecision(d, before.output)).toEqual({ kind: 'none' });
    expect(before.output.args.subagent_type).toBe('cheap');
  });

  it('denies with a retry text when no tier agent exists', () => {
    const s = primed();
    readChatParams(f('chat.params.observe-parent.json').input, s, 1);
    const before = f('tool.execute.before.observe.json');
    const d = realRoute(policyWith({}))(observeDispatch(before.input, before.output, s, 1, null)!);
    expect(d.action).toBe('deny');
    expect(applyDecision(d, before.output)).toMatchObject({
      kind: 'deny',
      message: expect.stringMatching(/^tiergate: .*fake\/big.*fake\/parent/),
    });
    expect(before.output.args.subagent_type).toBe('pricey');
  });

  it('leaves an agent it cannot price alone (OpenCode itself refuses an unknown agent): a switch could raise the cost', () => {
    const u = f('tool.execute.before.unknown-agent.json');
    const d = realRoute(policy)(observeDispatch(u.input, u.output, setup(), 1, null)!);
    expect(d).toMatchObject({ action: 'allow', reason: 'unknown-tier' });
    expect(u.output.args.subagent_type).toBe('nosuchagent');
  });
});

describe('OpenCode completion', () => {
  it('reads the child session, model and final text from tool.execute.after', () => {
    const a = f('tool.execute.after.observe.json');
    expect(readAfter(a.input, a.output)).toMatchObject({
      agent: 'pricey',
      model: 'fake/big',
      childSessionId: a.output.metadata.sessionId,
      finalText: 'CHILD_FINAL from model=big: done.',
      state: 'completed',
    });
    expect(readAfter({ tool: 'bash' }, a.output)).toBeNull();
  });

  it('turns the SDK child session into usage (input excludes cache reads)', () => {
    const sdk = f('sdk.child-session.observe.json');
    expect(usageFromTokens(sdk.session.tokens, countAssistantMessages(sdk.messages))).toEqual({
      input: 1500,
      output: 200,
      cacheRead: 500,
      cacheWrite5m: 0,
      cacheWrite1h: 0,
      reasoning: 0,
      requests: 1,
    });
    expect(usageFromTokens({ input: 10, output: 5, reasoning: 7, cache: { read: 1, write: 2 } })).toMatchObject({
      output: 12,
      reasoning: 7,
      cacheWrite5m: 2,
    });
    expect(usageFromTokens('nope')).toBeNull();
  });

  it('builds a completion observation with served model and usage', () => {
    const a = f('tool.execute.after.observe.json');
    const sdk = f('sdk.child-session.observe.json');
    const c = completionObservation(readAfter(a.input, a.output)!, sdk.session, 1, undefined, 99);
    expect(c).toMatchObject({
      kind: 'completion',
      harness: 'opencode',
      servedModel: 'fake/big',
      status: 'ok',
      usageSource: 'sdk',
      endedAt: 99,
      dedupeKey: `opencode:${sdk.session.id}`,
    });
  });

  it('flags a correction that did not take effect (rewrite-replace) and accepts one that did', () => {
    const pending = {
      sessionId: 's',
      requestedAgent: 'pricey',
      appliedAgent: 'cheap',
      expectedModel: 'fake/small',
      tier: 'cheap' as const,
      startedAt: 1,
    };
    const ok = f('tool.execute.after.rewrite.json');
    expect(correctionProblem(pending, readAfter(ok.input, ok.output)!)).toBeNull();
    const ignored = f('tool.execute.after.rewrite-replace.json');
    expect(correctionProblem(pending, readAfter(ignored.input, ignored.output)!)).toMatch(
      /^correction-not-applied: set subagent_type cheap, the task ran pricey/,
    );
    const wrongModel = { ...readAfter(ok.input, ok.output)!, model: 'fake/big' };
    expect(correctionProblem(pending, wrongModel)).toMatch(/expected the child on fake\/small, it ran on fake\/big/);
    expect(correctionProblem(undefined, wrongModel)).toBeNull();
  });
});
