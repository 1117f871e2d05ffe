/**
 * OpenCode 1.18.33: the model an agent runs on and where it was configured (opencode.json `agent`, agent markdown files),
 * priced from the provider config alone (issue 16). Fixtures: config.observe.json (JSON agents) and config.agent-md.json
 * (markdown agents: OpenCode hands them to the plugin with `name`).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Decision } from '../../../../src/contracts/decision.js';
import type { DispatchObservation } from '../../../../src/contracts/observation.js';
import { agentFile, agentSources, opencodeConfigDirs } from '../../../../src/adapters/opencode/agent-files.js';
import { createHooks } from '../../../../src/adapters/opencode/plugin.js';
import { resetDeclaredMemo } from '../../../../src/prices/declared.js';
import { clearRuntimeCache } from '../../../../src/config/runtime.js';
import { routeDispatch } from '../../../../src/runtime/dispatch.js';
import { fixture, policyWith } from '../../support/in-process.js';

const f = (name: string) => fixture('opencode', name);
/** provider.fake.models[*].cost as in reference/opencode.md §1 (USD per 1M; OpenCode's config spelling). */
const COSTS = {
  parent: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  big: { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
  small: { input: 0.25, output: 1.25, cache_read: 0.025, cache_write: 0.3125 },
};
const provider = { fake: { models: Object.fromEntries(Object.entries(COSTS).map(([k, cost]) => [k, { cost }])) } };

function dirs() {
  const root = mkdtempSync(join(tmpdir(), 'tg-ocam-'));
  const home = join(root, 'home');
  const project = join(root, 'repo', 'pkg');
  const cfgDir = join(root, 'cfgdir');
  for (const d of [home, project, cfgDir]) mkdirSync(d, { recursive: true });
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    OPENCODE_CONFIG_DIR: cfgDir,
    TIERGATE_HOME: join(root, 'tg'),
    TIERGATE_PRICE_REFRESH: 'off',
    TIERGATE_CALLBACK_DEADLINE_MS: '5000',
  };
  const md = (dir: string, sub: string, name: string, model: string) => {
    mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(
      join(dir, sub, `${name}.md`),
      `---\ndescription: ${name}\nmode: subagent\nmodel: ${model}\n---\nYou are ${name}.\n`,
    );
    return join(dir, sub, `${name}.md`);
  };
  return { root, home, project, cfgDir, env, md };
}

beforeEach(() => {
  resetDeclaredMemo();
  clearRuntimeCache();
});

describe('where an OpenCode agent was configured', () => {
  it('walks the directories OpenCode 1.18.33 reads, in its merge order', () => {
    const { root, home, project, cfgDir, env } = dirs();
    expect(opencodeConfigDirs(env, project, join(root, 'repo'))).toEqual([
      join(home, '.config', 'opencode'),
      join(project, '.opencode'),
      join(root, 'repo', '.opencode'),
      join(home, '.opencode'),
      cfgDir,
    ]);
    expect(opencodeConfigDirs({ ...env, OPENCODE_DISABLE_PROJECT_CONFIG: '1' }, project, null)).not.toContain(
      join(project, '.opencode'),
    );
  });

  it('a markdown agent is named by its file (the later directory wins, agent/ or agents/), a JSON agent by its config key', () => {
    const { root, home, project, cfgDir, env, md } = dirs();
    md(join(home, '.config', 'opencode'), 'agent', 'mdpricey', 'fake/big');
    const winner = md(cfgDir, 'agents', 'mdpricey', 'fake/big');
    const projectFile = md(join(project, '.opencode'), 'agent', 'mdcheap', 'fake/small');
    const agents = f('config.agent-md.json').agent as Record<string, unknown>;
    const cfgAgents = {
      ...f('config.observe.json').agent,
      mdpricey: { ...(agents.pricey as object), name: 'mdpricey' },
      mdcheap: { ...(agents.cheap as object), name: 'mdcheap' },
      lost: { name: 'lost', model: 'fake/big' },
    };
    const sources = agentSources(cfgAgents, env, project, join(root, 'repo'));
    expect(Object.fromEntries(sources)).toEqual({
      pricey: 'opencode.json agent.pricey',
      cheap: 'opencode.json agent.cheap',
      mdpricey: winner,
      mdcheap: projectFile,
      lost: 'agent markdown file lost.md',
    });
    expect(agentFile([cfgDir], '../../etc/passwd')).toBeNull();
  });
});

async function dispatch(
  agent: string,
  opts: {
    cfg: Record<string, unknown>;
    env: Record<string, string>;
    directory: string;
    tiers?: Record<string, string>;
  },
) {
  const decisions: Array<[DispatchObservation, Decision]> = [];
  const hooks = createHooks(
    { directory: opts.directory },
    {
      env: opts.env,
      now: () => 1000,
      record: () => undefined,
      refresh: () => undefined,
      policy: () => policyWith(opts.tiers ?? { cheap: 'fake/small' }),
      route: (obs, e) => {
        const d = routeDispatch(obs, e);
        decisions.push([obs, d]);
        return d;
      },
    },
  );
  await hooks.config(opts.cfg);
  // chat.params without model.cost: only the provider config prices the models (no catalog knows fake/*).
  const params = f('chat.params.observe-parent.json').input;
  await hooks['chat.params']({ ...params, model: { ...params.model, cost: undefined } });
  const before = f('tool.execute.before.observe.json');
  before.output.args.subagent_type = agent;
  let thrown: string | null = null;
  await hooks['tool.execute.before'](before.input, before.output).catch((e: Error) => {
    thrown = e.message;
  });
  return { obs: decisions[0]![0], decision: decisions[0]![1], args: before.output.args, thrown };
}

/** The merged config OpenCode hands the plugin: markdown agents (with `name`), the fake provider's costs per 1M. */
function mergedConfig(extraAgents: Record<string, unknown> = {}, fixtureName = 'config.agent-md.json') {
  const cfg = f(fixtureName);
  return { ...cfg, provider, agent: { ...cfg.agent, ...extraAgents } };
}

describe("OpenCode dispatch: the agent's configured model, priced from the provider config alone", () => {
  it('a markdown agent on a pricier custom model is corrected, and the observation names its file', async () => {
    const { cfgDir, env, project, md } = dirs();
    const file = md(cfgDir, 'agent', 'pricey', 'fake/big');
    const { obs, decision, args } = await dispatch('pricey', { cfg: mergedConfig(), env, directory: project });
    expect(obs).toMatchObject({
      requestedAgent: 'pricey',
      agentModel: 'fake/big',
      agentModelFrom: file,
      parentModel: 'fake/parent',
    });
    expect(decision).toMatchObject({ action: 'correct', reason: 'over-ceiling-corrected', value: 'tiergate-parent' });
    expect(args.subagent_type).toBe('tiergate-parent');
  });

  it('denied (no tier agent mapped) the retry names the agent and where its model was set', async () => {
    const { env, project } = dirs();
    const r = await dispatch('pricey', {
      cfg: mergedConfig({}, 'config.observe.json'),
      env,
      directory: project,
      tiers: {},
    });
    expect(r.decision.action).toBe('deny');
    expect(r.thrown).toMatch(
      /^tiergate: agent pricey runs on fake\/big \(from opencode.json agent.pricey\), which costs more than your own model fake\/parent/,
    );
  });

  it('an agent below the parent is left alone; one without a model and built-in general are priced as the parent', async () => {
    const { env, project } = dirs();
    const cheap = await dispatch('cheap', { cfg: mergedConfig(), env, directory: project });
    expect(cheap.decision).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
    expect(cheap.args.subagent_type).toBe('cheap');
    const plain = await dispatch('plain', {
      cfg: mergedConfig({ plain: { mode: 'subagent', description: 'no model', prompt: 'p' } }),
      env,
      directory: project,
    });
    expect(plain.obs).toMatchObject({
      agentModel: 'fake/parent',
      agentModelFrom: 'inherits the parent (opencode.json agent.plain names no model)',
    });
    expect(plain.decision).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
    const general = await dispatch('general', { cfg: mergedConfig(), env, directory: project });
    expect(general.obs).toMatchObject({
      agentModel: 'fake/parent',
      agentModelFrom: 'inherits the parent (built-in agent general)',
    });
    expect(general.decision.action).toBe('allow');
  });

  it('an agent the config does not have is left alone (a switch could raise the cost), never corrected upward', async () => {
    const { env, project } = dirs();
    const r = await dispatch('nosuchagent', { cfg: mergedConfig(), env, directory: project });
    expect(r.obs).toMatchObject({ agentModel: null, agentModelFrom: null });
    expect(r.decision).toMatchObject({ action: 'allow', reason: 'unknown-tier' });
    expect(r.args.subagent_type).toBe('nosuchagent');
  });

  it("the injected tier agents are labelled as tiergate's", async () => {
    const { env, project } = dirs();
    const r = await dispatch('tiergate-cheap', { cfg: mergedConfig(), env, directory: project });
    expect(r.obs).toMatchObject({ agentModel: 'fake/small', agentModelFrom: 'tiergate tiers.opencode' });
  });
});
