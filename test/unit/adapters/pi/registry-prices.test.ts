/**
 * pi: the child's price comes from pi's own model registry (ctx.modelRegistry, 0.73.1), not only the parent's
 * ctx.model.cost (issue 16). The handler runs through the real routeDispatch and price layers, with costs as declared
 * in the reference's models.json (USD per 1M): no catalog knows `fake/*`, so the registry is the only price source.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Decision } from '../../../../src/contracts/decision.js';
import type { DispatchObservation } from '../../../../src/contracts/observation.js';
import { clearPiAgentCache, loadPiAgents, piDefault, type PiAgent } from '../../../../src/adapters/pi/agents.js';
import { registerTiergate, type PiDeps } from '../../../../src/adapters/pi/extension.js';
import { observePiDispatch } from '../../../../src/adapters/pi/observe.js';
import { MAX_NAMES, registryModel, registryPrices } from '../../../../src/adapters/pi/registry-prices.js';
import { resetDeclaredMemo } from '../../../../src/prices/declared.js';
import { clearRuntimeCache, loadRuntime } from '../../../../src/config/runtime.js';
import { routeDispatch } from '../../../../src/runtime/dispatch.js';
import { policyWith } from '../../support/in-process.js';

const model = (provider: string, id: string, cost: [number, number, number, number]) => ({
  provider,
  id,
  name: id,
  api: 'openai-completions',
  cost: { input: cost[0], output: cost[1], cacheRead: cost[2], cacheWrite: cost[3] },
});
const PARENT = model('fake', 'parent', [3, 15, 0.3, 3.75]);
const BIG = model('fake', 'big', [15, 75, 1.5, 18.75]);
const SMALL = model('fake', 'small', [0.25, 1.25, 0.025, 0.3125]);

/** The part of pi 0.73.1's ModelRegistry the adapter uses, over a fixed list (find = provider && id, as pi's). */
function registry(models: unknown[] = [PARENT, BIG, SMALL]) {
  const calls = { find: 0, getAll: 0 };
  return {
    calls,
    find(provider: string, id: string) {
      calls.find++;
      return models.find((m) => (m as { provider: string }).provider === provider && (m as { id: string }).id === id);
    },
    getAll() {
      calls.getAll++;
      return models;
    },
  };
}

beforeEach(() => {
  resetDeclaredMemo();
  clearRuntimeCache();
  clearPiAgentCache();
});

describe('registry lookup (matched the way pi resolves an agent model)', () => {
  it('provider/id through find(), a bare id only when one model has it, a thinking suffix priced as the model', () => {
    const reg = registry([PARENT, BIG, SMALL, model('other', 'big', [1, 1, 0, 0])]);
    const all = () => reg.getAll();
    expect(registryModel(reg, 'fake/big', all)).toBe(BIG);
    expect(registryModel(reg, 'small', all)).toBe(SMALL);
    expect(registryModel(reg, 'big', all)).toBeNull(); // two providers have `big`: pi would not pick one either
    expect(registryModel(reg, 'fake/big:high', all)).toBe(BIG);
    expect(registryModel(reg, 'FAKE/Small', all)).toBe(SMALL);
    expect(registryModel(reg, 'fake/nosuch', all)).toBeNull();
  });

  it('declares under the name as written, once per name, and reads the whole list at most once per call', () => {
    const reg = registry();
    expect(registryPrices(reg, ['fake/big', 'fake/big', 'small', null, 'fake/nosuch'])).toEqual([
      { model: 'fake/big', cost: BIG.cost },
      { model: 'small', cost: SMALL.cost },
    ]);
    expect(reg.calls.getAll).toBe(1);
  });

  it('is bounded and fails open: a throwing or missing registry declares nothing, never throws', () => {
    const many = Array.from({ length: 500 }, (_, i) => `fake/m${i}`);
    const reg = registry();
    registryPrices(reg, many);
    expect(reg.calls.find).toBe(MAX_NAMES);
    expect(registryPrices(undefined, ['fake/big'])).toEqual([]);
    expect(registryPrices({}, ['fake/big'])).toEqual([]);
    const throwing = {
      find: () => {
        throw new Error('boom');
      },
      getAll: () => {
        throw new Error('boom');
      },
    };
    expect(registryPrices(throwing, ['fake/big', 'small'])).toEqual([]);
  });
});

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-pireg-'));
  const agentDir = join(dir, 'pi-agent');
  mkdirSync(join(agentDir, 'agents'), { recursive: true });
  const env = {
    TIERGATE_HOME: join(dir, 'tg'),
    HOME: dir,
    TIERGATE_PRICE_REFRESH: 'off',
    TIERGATE_CALLBACK_DEADLINE_MS: '5000',
    PI_CODING_AGENT_DIR: agentDir,
  };
  return { dir, agentDir, env };
}

const AGENTS = new Map<string, PiAgent>([
  ['pricey', { name: 'pricey', model: 'fake/big', source: 'user', path: '/agents/pricey.md' }],
  ['cheap', { name: 'cheap', model: 'fake/small', source: 'user', path: '/agents/cheap.md' }],
  [
    'tiergate-cheap',
    { name: 'tiergate-cheap', model: 'fake/small', source: 'user', path: '/agents/tiergate-cheap.md' },
  ],
]);

async function dispatch(input: Record<string, unknown>, ctxExtra: Record<string, unknown>) {
  const { env } = sandbox();
  const decisions: Array<[string | null, Decision]> = [];
  const handlers: Record<string, (e: unknown, c: unknown) => Promise<unknown>> = {};
  const deps: PiDeps = {
    env,
    argv: [],
    now: () => 1,
    record: () => undefined,
    refresh: () => undefined,
    policy: () => policyWith({}, 'pi'),
    agents: () => AGENTS,
    defaultModel: () => null,
    route: (obs: DispatchObservation, e) => {
      const d = routeDispatch(obs, e);
      decisions.push([obs.requestedAgent, d]);
      return d;
    },
  };
  registerTiergate(
    {
      on: (n, h) => {
        handlers[n] = h as never;
      },
    },
    deps,
  );
  const event = {
    type: 'tool_call',
    toolName: 'subagent',
    toolCallId: 'c1',
    input: input as { tasks: Array<{ agent: string }> },
  };
  const gate = await handlers.tool_call!(event, { cwd: '/project', model: PARENT, ...ctxExtra });
  return { event, gate, decisions, env };
}

describe('pi handler: the child is priced from the registry (real engine and price layers)', () => {
  it('parallel tasks: the child on the pricier custom model is corrected, the one below the parent left alone', async () => {
    const { event, gate, decisions, env } = await dispatch(
      {
        tasks: [
          { agent: 'pricey', task: 'a' },
          { agent: 'cheap', task: 'b' },
        ],
      },
      { modelRegistry: registry() },
    );
    expect(gate).toBeUndefined();
    expect(event.input.tasks.map((t) => t.agent)).toEqual(['tiergate-cheap', 'cheap']);
    expect(decisions.map(([a, d]) => [a, d.action, d.reason])).toEqual([
      ['pricey', 'correct', 'over-ceiling-corrected'],
      ['cheap', 'allow', 'within-ceiling'],
    ]);
    // The price came from the harness-declared layer: no catalog knows the fake models.
    expect(loadRuntime(env, '/project').prices.resolve('fake/big', 'pi').price).toMatchObject({
      source: 'harness',
      rates: { input: '15', output: '75' },
    });
  });

  it('a single agent call on the pricier model with no tier agent in scope is denied, naming the agent file', async () => {
    const only = new Map([...AGENTS].filter(([n]) => n !== 'tiergate-cheap'));
    const { env } = sandbox();
    const handlers: Record<string, (e: unknown, c: unknown) => Promise<unknown>> = {};
    registerTiergate(
      {
        on: (n, h) => {
          handlers[n] = h as never;
        },
      },
      {
        env,
        argv: [],
        now: () => 1,
        record: () => undefined,
        refresh: () => undefined,
        policy: () => policyWith({}, 'pi'),
        agents: () => only,
        defaultModel: () => null,
        route: routeDispatch,
      },
    );
    const gate = await handlers.tool_call!(
      { toolName: 'subagent', toolCallId: 'c1', input: { agent: 'pricey', task: 't' } },
      { cwd: '/p', model: PARENT, modelRegistry: registry() },
    );
    expect(gate).toEqual({
      block: true,
      reason: expect.stringMatching(
        /^tiergate: agent pricey runs on fake\/big \(from \/agents\/pricey\.md\), which costs more than your own model fake\/parent/,
      ),
    });
  });

  it('without a registry (an older pi) only the parent is priced: the child is "no price" and allowed, as before', async () => {
    const { event, gate, decisions } = await dispatch({ tasks: [{ agent: 'pricey', task: 'a' }] }, {});
    expect(gate).toBeUndefined();
    expect(event.input.tasks[0]!.agent).toBe('pricey');
    expect(decisions[0]![1]).toMatchObject({ action: 'allow', reason: 'unknown-price-allowed' });
  });
});

describe('pi agentModelFrom', () => {
  it('names the agent file, or the settings file whose defaultModel a model-less agent runs on', () => {
    const { agentDir, env, dir } = sandbox();
    writeFileSync(join(agentDir, 'agents', 'pricey.md'), '---\nname: pricey\ndescription: d\nmodel: fake/big\n---\n');
    writeFileSync(join(agentDir, 'agents', 'plain.md'), '---\nname: plain\ndescription: d\n---\n');
    writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'parent' }));
    const project = join(dir, 'proj');
    mkdirSync(join(project, '.pi'), { recursive: true });
    const agents = loadPiAgents(env, project);
    const def = piDefault(env, project);
    expect(def).toEqual({
      model: 'fake/parent',
      from: `pi settings defaultModel (${join(agentDir, 'settings.json')})`,
    });
    const obs = (agent: string) =>
      observePiDispatch({
        event: { toolName: 'subagent', input: { agent, task: 't' } },
        ctx: { model: PARENT },
        agents,
        defaultModel: def.model,
        defaultModelFrom: def.from,
        policy: policyWith({}, 'pi'),
        now: 1,
      })[0]!.obs;
    expect(obs('pricey')).toMatchObject({
      agentModel: 'fake/big',
      agentModelFrom: join(agentDir, 'agents', 'pricey.md'),
    });
    expect(obs('plain')).toMatchObject({ agentModel: 'fake/parent', agentModelFrom: def.from });
    expect(obs('nosuch')).toMatchObject({ agentModel: null, agentModelFrom: null });
    writeFileSync(join(project, '.pi', 'settings.json'), JSON.stringify({ defaultModel: 'small' }));
    clearPiAgentCache();
    expect(piDefault(env, project)).toEqual({
      model: 'fake/small',
      from: `pi settings defaultModel (${join(project, '.pi', 'settings.json')})`,
    });
  });
});
