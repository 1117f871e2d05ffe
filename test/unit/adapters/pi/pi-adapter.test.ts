import { mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompletionObservation } from '../../../../src/contracts/observation.js';
import type { Env } from '../../../../src/io/paths.js';
import {
  agentsInScope,
  clearPiAgentCache,
  loadPiAgents,
  parseAgentFile,
  piDefaultModel,
  type PiAgent,
} from '../../../../src/adapters/pi/agents.js';
import { isPiChild, registerTiergate, safeRegister, type PiDeps } from '../../../../src/adapters/pi/extension.js';
import { observePiCompletions, observePiDispatch } from '../../../../src/adapters/pi/observe.js';
import { fixture, policyWith, realRoute } from '../../support/in-process.js';

const f = (name: string) => fixture('pi', name);
const agents = (extra: Record<string, string | null> = {}) =>
  new Map<string, PiAgent>(
    Object.entries({ pricey: 'fake/big', cheap: 'fake/small', ...extra }).map(([name, model]) => [
      name,
      { name, model, source: 'user' as const },
    ]),
  );

describe('pi dispatch observation', () => {
  it('reads the parent from ctx.model and the agent model from the agent files', () => {
    const { event, ctx } = f('tool_call.example-observe.json');
    const [slot, ...rest] = observePiDispatch({
      event,
      ctx,
      agents: agents(),
      defaultModel: 'fake/parent',
      policy: policyWith({}, 'pi'),
      now: 5,
    });
    expect(rest).toEqual([]);
    expect(slot!.obs).toMatchObject({
      harness: 'pi',
      callId: 'call_fake_1',
      parentModel: 'fake/parent',
      parentModelSource: 'ctx.model',
      requestedAgent: 'pricey',
      agentModel: 'fake/big',
    });
    expect(slot!.holder).toBe(event.input);
  });

  it('makes one slot per parallel task, each pointing at its own item', () => {
    const { event, ctx } = f('tool_call.example-parallel.json');
    const slots = observePiDispatch({
      event,
      ctx,
      agents: agents(),
      defaultModel: 'fake/parent',
      policy: policyWith({}, 'pi'),
      now: 5,
    });
    expect(slots.map((s) => [s.label, s.obs.requestedAgent, s.obs.agentModel, s.obs.callId])).toEqual([
      ['tasks[0].agent', 'pricey', 'fake/big', 'call_fake_1#tasks.0'],
      ['tasks[1].agent', 'cheap', 'fake/small', 'call_fake_1#tasks.1'],
    ]);
    expect(slots[0]!.holder).toBe(event.input.tasks[0]);
  });

  it("handles chain[], a model argument and tiergate's own tier argument; ignores other tools", () => {
    const { ctx } = f('tool_call.example-observe.json');
    const policy = policyWith({ cheap: 'fake/small' }, 'pi');
    const chain = observePiDispatch({
      event: {
        toolName: 'subagent',
        toolCallId: 'c',
        input: {
          chain: [
            { agent: 'cheap', task: 'a' },
            { agent: 'nosuch', task: 'b' },
          ],
        },
      },
      ctx,
      agents: agents(),
      defaultModel: 'fake/parent',
      policy,
      now: 1,
    });
    expect(chain.map((s) => [s.label, s.obs.agentModel])).toEqual([
      ['chain[0].agent', 'fake/small'],
      ['chain[1].agent', null],
    ]);
    const model = observePiDispatch({
      event: { toolName: 'subagent', input: { agent: 'x', task: 't', model: 'fake/big' } },
      ctx,
      agents: agents(),
      defaultModel: 'fake/parent',
      policy,
      now: 1,
    });
    expect(model[0]!.obs).toMatchObject({
      requestedModel: 'fake/big',
      capability: { rewriteField: 'model', rewriteKind: 'model' },
    });
    const tier = observePiDispatch({
      event: { toolName: 'subagent', input: { tier: 'cheap', task: 't' } },
      ctx,
      agents: agents(),
      defaultModel: 'fake/parent',
      policy,
      now: 1,
    });
    expect(tier[0]!.obs).toMatchObject({ agentModel: 'fake/small', capability: { rewriteField: 'tier' } });
    expect(tier[0]!.obs.candidates?.map((c) => c.value)).toEqual(['cheap', 'parent']);
    expect(
      observePiDispatch({
        event: { toolName: 'bash', input: { command: 'ls' } },
        ctx,
        agents: agents(),
        defaultModel: 'fake/parent',
        policy,
        now: 1,
      }),
    ).toEqual([]);
    expect(
      observePiDispatch({ event: null, ctx, agents: agents(), defaultModel: 'fake/parent', policy, now: 1 }),
    ).toEqual([]);
  });
});

describe('pi completion', () => {
  it("takes the served model from the child's own assistant message, not results[i].model", () => {
    const { event, ctx } = f('tool_result.example-observe.json');
    expect(event.details.results[0].model).toBe('fake/big');
    const [c, ...rest] = observePiCompletions(event, ctx ?? {}, 7);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      harness: 'pi',
      callId: 'call_fake_1',
      subagentType: 'pricey',
      servedModel: 'fake/big',
      status: 'ok',
      usageSource: 'tool-result',
      endedAt: 7,
      usage: { input: 1500, output: 200, cacheRead: 500, cacheWrite5m: 0, requests: 1 },
    });
  });

  it('records each parallel child under its own call id', () => {
    const { event } = f('tool_result.example-parallel.json');
    const cs = observePiCompletions(event, {}, 7);
    expect(cs.map((c) => [c.callId, c.subagentType, c.servedModel])).toEqual([
      ['call_fake_1#tasks.0', 'pricey', 'fake/big'],
      ['call_fake_1#tasks.1', 'cheap', 'fake/small'],
    ]);
    expect(new Set(cs.map((c) => c.dedupeKey)).size).toBe(2);
  });

  it('gives each parallel child the call id its dispatch had, so the ledger can join them', () => {
    const call = f('tool_call.example-parallel.json');
    const dispatchIds = observePiDispatch({
      event: call.event,
      ctx: call.ctx,
      agents: agents(),
      defaultModel: 'fake/parent',
      policy: policyWith({}, 'pi'),
      now: 1,
    }).map((s) => s.obs.callId);
    expect(observePiCompletions(f('tool_result.example-parallel.json').event, {}, 1).map((c) => c.callId)).toEqual(
      dispatchIds,
    );
    const single = f('tool_call.example-observe.json');
    expect(observePiCompletions(f('tool_result.example-observe.json').event, {}, 1)[0]!.callId).toBe(
      single.event.toolCallId,
    );
  });

  it('records nothing for an unknown details shape or a blocked call', () => {
    expect(observePiCompletions(f('tool_result.observe.json').event, {}, 1)).toEqual([]);
    expect(observePiCompletions({ toolName: 'subagent', details: {}, isError: true }, {}, 1)).toEqual([]);
  });
});

describe('pi agents and child detection', () => {
  it("parses agent frontmatter and reads user agents, then the nearest project agents, as pi's example does", () => {
    expect(parseAgentFile('---\nname: x\ndescription: d\nmodel: "fake/big"\n---\nbody')).toEqual({
      name: 'x',
      description: 'd',
      model: 'fake/big',
    });
    expect(parseAgentFile('no frontmatter')).toBeNull();
    // The shared reader (io/frontmatter.ts): a trailing comment is no part of the value, a quoted one keeps its escapes.
    expect(parseAgentFile('---\nname: "x \\"y\\""\nmodel: fake/small # cheap\n---\n')).toEqual({
      name: 'x "y"',
      description: null,
      model: 'fake/small',
    });
    const root = mkdtempSync(join(tmpdir(), 'tg-pia-'));
    mkdirSync(join(root, 'agent', 'agents'), { recursive: true });
    mkdirSync(join(root, 'proj', '.pi', 'agents'), { recursive: true });
    mkdirSync(join(root, 'proj', 'src', 'deep'), { recursive: true });
    writeFileSync(join(root, 'agent', 'agents', 'a.md'), '---\nname: a\ndescription: user a\nmodel: fake/big\n---\n');
    writeFileSync(join(root, 'agent', 'agents', 'b.md'), '---\nname: b\ndescription: no model\n---\n');
    // pi's example skips a file without a name or a description.
    writeFileSync(join(root, 'agent', 'agents', 'c.md'), '---\ndescription: no name\n---\n');
    writeFileSync(join(root, 'agent', 'agents', 'd.md'), '---\nname: d\nmodel: fake/big\n---\n');
    writeFileSync(
      join(root, 'proj', '.pi', 'agents', 'a.md'),
      '---\nname: a\ndescription: project a\nmodel: fake/small\n---\n',
    );
    writeFileSync(
      join(root, 'proj', '.pi', 'agents', 'p.md'),
      '---\nname: p\ndescription: project only\nmodel: fake/small\n---\n',
    );
    clearPiAgentCache();
    // From a subdirectory: the nearest .pi/agents above it counts.
    const found = loadPiAgents({ PI_CODING_AGENT_DIR: join(root, 'agent') }, join(root, 'proj', 'src', 'deep'));
    expect([...found.keys()].sort()).toEqual(['a', 'b', 'p']);
    expect(found.get('a')).toEqual({
      name: 'a',
      model: 'fake/small',
      source: 'project',
      path: join(root, 'proj', '.pi', 'agents', 'a.md'),
      shadows: { name: 'a', model: 'fake/big', source: 'user', path: join(root, 'agent', 'agents', 'a.md') },
    });
    expect(found.get('b')).toEqual({
      name: 'b',
      model: null,
      source: 'user',
      path: join(root, 'agent', 'agents', 'b.md'),
    });
    const view = (scope: unknown) =>
      [...agentsInScope(found, scope).values()].map((x) => [x.name, x.model, x.source]).sort();
    expect(view(undefined)).toEqual([
      ['a', 'fake/big', 'user'],
      ['b', null, 'user'],
    ]);
    expect(view('project')).toEqual([
      ['a', 'fake/small', 'project'],
      ['p', 'fake/small', 'project'],
    ]);
    expect(view('both')).toEqual([
      ['a', 'fake/small', 'project'],
      ['b', null, 'user'],
      ['p', 'fake/small', 'project'],
    ]);
  });

  it("a model-less agent is priced on pi's settings default (project over global), not the parent's model", () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-pis-'));
    mkdirSync(join(root, 'agent'), { recursive: true });
    mkdirSync(join(root, 'proj', '.pi'), { recursive: true });
    writeFileSync(
      join(root, 'agent', 'settings.json'),
      JSON.stringify({ defaultProvider: 'fake', defaultModel: 'big' }),
    );
    clearPiAgentCache();
    const env = { PI_CODING_AGENT_DIR: join(root, 'agent') };
    expect(piDefaultModel(env, join(root, 'proj'))).toBe('fake/big');
    writeFileSync(join(root, 'proj', '.pi', 'settings.json'), JSON.stringify({ defaultModel: 'small' }));
    clearPiAgentCache();
    expect(piDefaultModel(env, join(root, 'proj'))).toBe('fake/small');
    expect(piDefaultModel({ PI_CODING_AGENT_DIR: join(root, 'none') }, null)).toBeNull();
    const { event, ctx } = f('tool_call.example-observe.json');
    const input = { ...event, input: { agent: 'plain', task: 't' } };
    const [slot] = observePiDispatch({
      event: input,
      ctx,
      agents: agents({ plain: null }),
      defaultModel: 'fake/big',
      policy: policyWith({}, 'pi'),
      now: 1,
    });
    expect(slot!.obs).toMatchObject({ parentModel: 'fake/parent', agentModel: 'fake/big' });
  });

  it('a user-scope call is never corrected to a project-only tier agent', () => {
    const { ctx } = f('tool_call.example-observe.json');
    const all = new Map<string, PiAgent>([
      ['pricey', { name: 'pricey', model: 'fake/big', source: 'user' }],
      ['tiergate-cheap', { name: 'tiergate-cheap', model: 'fake/small', source: 'project' }],
    ]);
    const obs = (input: Record<string, unknown>) =>
      observePiDispatch({
        event: { toolName: 'subagent', toolCallId: 'c', input },
        ctx,
        agents: all,
        defaultModel: null,
        policy: policyWith({}, 'pi'),
        now: 1,
      })[0]!.obs;
    expect(obs({ agent: 'pricey', task: 't' }).candidates).toEqual([]);
    expect(obs({ agent: 'pricey', task: 't', agentScope: 'both' }).candidates?.map((c) => c.value)).toEqual([
      'tiergate-cheap',
    ]);
  });

  it("recognises a child pi process by its argv (pi example) or tiergate's marker", () => {
    expect(isPiChild(f('factory.install-dir-child.json').argv, {})).toBe(true);
    expect(isPiChild(f('factory.observe.json').argv, {})).toBe(false);
    expect(isPiChild([], { TIERGATE_PI_CHILD: '1' })).toBe(true);
  });
});

function fakePi() {
  const handlers: Record<string, (e: any, c: any) => unknown> = {};
  return {
    handlers,
    api: {
      on: (name: string, h: (e: any, c: any) => unknown) => {
        handlers[name] = h;
      },
    },
  };
}

function deps(over: Partial<PiDeps> & { tiers?: Record<string, string> } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'tg-piu-'));
  const policy = policyWith(over.tiers ?? {}, 'pi');
  const recorded: CompletionObservation[] = [];
  const refreshes: Env[] = [];
  const d: PiDeps = {
    env: { TIERGATE_HOME: home, TIERGATE_CALLBACK_DEADLINE_MS: '200' },
    argv: [],
    now: () => 1,
    route: realRoute(policy),
    record: (o) => recorded.push(o),
    policy: () => policy,
    agents: () => agents({ 'tiergate-cheap': 'fake/small' }),
    defaultModel: () => 'fake/parent',
    refresh: (e) => void refreshes.push(e),
    ...over,
  };
  const diagnostics = () => {
    const p = join(home, 'data', 'diagnostics.log');
    return existsSync(p)
      ? readFileSync(p, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  };
  return { d, recorded, diagnostics, refreshes };
}

describe('pi handlers', () => {
  it('loading starts the background price refresh once, in a parent only (never from a handler)', async () => {
    const { api, handlers } = fakePi();
    const { d, refreshes } = deps();
    registerTiergate(api, d);
    expect(refreshes).toEqual([d.env]);
    await handlers.tool_call!(
      { type: 'tool_call', toolName: 'subagent', toolCallId: 'c1', input: { agent: 'cheap', task: 't' } },
      { model: { id: 'parent', provider: 'fake' } },
    );
    expect(refreshes).toHaveLength(1);
    const child = deps({ argv: ['node', 'pi', '--mode', 'json', '-p', '--no-session', 'Task: x'] });
    registerTiergate(fakePi().api, child.d);
    expect(child.refreshes).toEqual([]);
  });

  it('corrects in place (pricey -> tiergate-cheap) and leaves the cheap task alone', async () => {
    const { api, handlers } = fakePi();
    registerTiergate(api, deps().d);
    const { event, ctx } = f('tool_call.example-parallel.json');
    expect(await handlers.tool_call!(event, ctx)).toBeUndefined();
    expect(event.input.tasks.map((t: { agent: string }) => t.agent)).toEqual(['tiergate-cheap', 'cheap']);
  });

  it('blocks with the retry text when no tier agent is within the ceiling', async () => {
    const { api, handlers } = fakePi();
    registerTiergate(api, deps({ agents: () => agents() }).d);
    const { event, ctx } = f('tool_call.example-observe.json');
    expect(await handlers.tool_call!(event, ctx)).toEqual({
      block: true,
      reason: expect.stringMatching(
        /^tiergate: agent pricey runs on fake\/big, which costs more than your own model fake\/parent/,
      ),
    });
    expect(event.input.agent).toBe('pricey');
  });

  it('blocks the whole call (and mutates nothing) when one of several tasks is denied', async () => {
    const { api, handlers } = fakePi();
    registerTiergate(api, deps({ agents: () => agents() }).d);
    const { event, ctx } = f('tool_call.example-parallel.json');
    const r = (await handlers.tool_call!(event, ctx)) as { reason: string };
    expect(r.reason).toMatch(/^tasks\[0\]\.agent: tiergate:/);
    expect(event.input.tasks.map((t: { agent: string }) => t.agent)).toEqual(['pricey', 'cheap']);
  });

  it('fails open when the engine throws or hangs', async () => {
    for (const route of [
      () => {
        throw new Error('boom');
      },
      () => {
        throw new Error('x');
      },
    ]) {
      const { api, handlers } = fakePi();
      const { d, diagnostics } = deps({ route });
      registerTiergate(api, d);
      const { event, ctx } = f('tool_call.example-observe.json');
      expect(await handlers.tool_call!(event, ctx)).toBeUndefined();
      expect(event.input.agent).toBe('pricey');
      expect(diagnostics()).toHaveLength(1);
    }
    // An engine that never answers: cut at the deadline, the call proceeds untouched.
    const { api, handlers } = fakePi();
    const { d, diagnostics } = deps({ route: () => new Promise(() => undefined) });
    registerTiergate(api, d);
    const { event, ctx } = f('tool_call.example-observe.json');
    expect(await handlers.tool_call!(event, ctx)).toBeUndefined();
    expect(event.input.agent).toBe('pricey');
    expect(diagnostics().some((x) => /200 ms/.test(x.message))).toBe(true);
  });

  it('records completions and never throws from tool_result', async () => {
    const { api, handlers } = fakePi();
    const { d, recorded } = deps();
    registerTiergate(api, d);
    const { event, ctx } = f('tool_result.example-parallel.json');
    expect(await handlers.tool_result!(event, ctx)).toBeUndefined();
    expect(recorded).toHaveLength(2);
    const bad = fakePi();
    registerTiergate(bad.api, {
      ...d,
      record: () => {
        throw new Error('disk full');
      },
    });
    await expect(bad.handlers.tool_result!(event, ctx)).resolves.toBeUndefined();
  });

  it('loading never throws, even when building the dependencies fails', () => {
    const { api, handlers } = fakePi();
    expect(() =>
      safeRegister(api, () => {
        throw new Error('bad env');
      }),
    ).not.toThrow();
    expect(handlers).toEqual({});
  });
});
