/** The plugin's callbacks as OpenCode calls them, with the fixtures replayed in the order 1.18.33 fires them. */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CompletionObservation } from '../../../../src/contracts/observation.js';
import type { Env } from '../../../../src/io/paths.js';
import { createHooks, type OpencodeClient, type PluginDeps } from '../../../../src/adapters/opencode/plugin.js';
import { Tiergate } from '../../../../plugins/opencode/index.js';
import { fixture, policyWith, realRoute } from '../../support/in-process.js';

const f = (name: string) => fixture('opencode', name);

function harness(
  opts: {
    policy?: ReturnType<typeof policyWith>;
    route?: PluginDeps['route'];
    client?: OpencodeClient;
    env?: Record<string, string>;
  } = {},
) {
  const home = mkdtempSync(join(tmpdir(), 'tg-ocu-'));
  const policy = opts.policy ?? policyWith({ cheap: 'fake/small' });
  const recorded: CompletionObservation[] = [];
  const refreshes: Env[] = [];
  const deps: PluginDeps = {
    env: { TIERGATE_HOME: home, TIERGATE_CALLBACK_DEADLINE_MS: '200', ...opts.env },
    now: () => 1000,
    route: opts.route ?? realRoute(policy),
    record: (o) => recorded.push(o),
    policy: () => policy,
    refresh: (e) => void refreshes.push(e),
  };
  const sdk = f('sdk.child-session.observe.json');
  const client: OpencodeClient = opts.client ?? {
    session: { get: async () => ({ data: sdk.session }), messages: async () => ({ data: sdk.messages }) },
  };
  const hooks = createHooks({ client, directory: '/project' }, deps);
  const diagnostics = () => {
    const p = join(home, 'data', 'diagnostics.log');
    return existsSync(p)
      ? readFileSync(p, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  };
  return { hooks, recorded, diagnostics, refreshes };
}

async function prime(hooks: ReturnType<typeof harness>['hooks']) {
  await hooks.config(f('config.observe.json'));
  await hooks['chat.params'](f('chat.params.observe-title.json').input);
  await hooks['chat.params'](f('chat.params.observe-parent.json').input);
}

describe('OpenCode plugin callbacks', () => {
  it('loading starts the background price refresh once; no callback starts another', async () => {
    const { hooks, refreshes } = harness();
    expect(refreshes).toHaveLength(1);
    await prime(hooks);
    expect(refreshes).toHaveLength(1);
  });

  it('config injects tier agents into the live config', async () => {
    const { hooks } = harness();
    const cfg = f('config.observe.json');
    await hooks.config(cfg);
    expect(Object.keys(cfg.agent).sort()).toEqual(['cheap', 'pricey', 'tiergate-cheap', 'tiergate-parent']);
  });

  it('corrects in place, then records the completion with SDK usage and no correction problem', async () => {
    const { hooks, recorded, diagnostics } = harness();
    await prime(hooks);
    const before = f('tool.execute.before.observe.json');
    await hooks['tool.execute.before'](before.input, before.output);
    expect(before.output.args.subagent_type).toBe('tiergate-parent');
    const after = f('tool.execute.after.observe.json');
    after.input.args.subagent_type = 'tiergate-parent';
    after.output.metadata.model = { providerID: 'fake', modelID: 'parent' };
    await hooks['tool.execute.after'](after.input, after.output);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      servedModel: 'fake/big',
      usage: { input: 1500, cacheRead: 500 },
      startedAt: 1000,
    });
    expect(diagnostics().filter((d) => d.where.includes('correction-not-applied'))).toEqual([]);
  });

  it('records correction-not-applied when the after-hook shows the original agent', async () => {
    const { hooks, diagnostics } = harness();
    await prime(hooks);
    const before = f('tool.execute.before.observe.json');
    await hooks['tool.execute.before'](before.input, before.output);
    const after = f('tool.execute.after.observe.json'); // still pricey on big: the edit was ignored
    await hooks['tool.execute.after'](after.input, after.output);
    expect(diagnostics().filter((d) => d.where === 'opencode:correction-not-applied')).toHaveLength(1);
  });

  it('denies by throwing the retry text', async () => {
    const { hooks } = harness({ policy: policyWith({}) });
    await hooks['chat.params'](f('chat.params.observe-parent.json').input);
    await hooks.config(f('config.observe.json'));
    const before = f('tool.execute.before.observe.json');
    await expect(hooks['tool.execute.before'](before.input, before.output)).rejects.toThrow(
      /^tiergate: agent pricey runs on fake\/big \(from opencode.json agent.pricey\), which costs more than your own model fake\/parent/,
    );
  });

  it('a throwing engine fails open: no throw, no mutation, one diagnostic', async () => {
    const { hooks, diagnostics } = harness({
      route: () => {
        throw new Error('boom');
      },
    });
    await prime(hooks);
    const before = f('tool.execute.before.observe.json');
    await expect(hooks['tool.execute.before'](before.input, before.output)).resolves.toBeUndefined();
    expect(before.output.args.subagent_type).toBe('pricey');
    expect(diagnostics().filter((d) => d.where === 'opencode:tool.execute.before')).toHaveLength(1);
  });

  it('a hanging dispatch is cut at the deadline and allowed', async () => {
    // A sessionTotal budget asks OpenCode's SDK for the session's cost at dispatch; this SDK never answers.
    const base = policyWith({ cheap: 'fake/small' });
    const hang: OpencodeClient = {
      session: { get: () => new Promise(() => undefined), messages: () => new Promise(() => undefined) },
    };
    const { hooks, diagnostics } = harness({
      policy: { ...base, budgets: { ...base.budgets, sessionTotal: '20' } },
      client: hang,
    });
    await prime(hooks);
    const before = f('tool.execute.before.observe.json');
    const t0 = Date.now();
    await hooks['tool.execute.before'](before.input, before.output);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(before.output.args.subagent_type).toBe('pricey');
    expect(diagnostics().some((d) => /no answer within 200 ms/.test(d.message))).toBe(true);
  });

  it('tool.execute.after never throws, even when the SDK hangs or throws', async () => {
    const hang: OpencodeClient = {
      session: { get: () => new Promise(() => undefined), messages: () => new Promise(() => undefined) },
    };
    const bad: OpencodeClient = {
      session: {
        get: async () => {
          throw new Error('sdk down');
        },
        messages: async () => [],
      },
    };
    for (const client of [hang, bad]) {
      const { hooks, recorded } = harness({ client });
      const after = f('tool.execute.after.observe.json');
      await expect(hooks['tool.execute.after'](after.input, after.output)).resolves.toBeUndefined();
      expect(recorded).toEqual([]);
      expect(after.output.output).toContain('CHILD_FINAL');
    }
  });

  it('ignores tools other than task and malformed payloads without throwing', async () => {
    const { hooks, recorded } = harness();
    await expect(hooks['tool.execute.before']({ tool: 'bash' }, { args: { command: 'ls' } })).resolves.toBeUndefined();
    await expect(hooks['tool.execute.before'](undefined, undefined)).resolves.toBeUndefined();
    await expect(hooks['tool.execute.after']({ tool: 'task' }, null)).resolves.toBeUndefined();
    await expect(hooks.config(null)).resolves.toBeUndefined();
    expect(recorded).toEqual([]);
  });
});

describe('the plugin entry (plugins/opencode)', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('a failure while loading is one diagnostic and no hooks, never a throw (a throw would unload the plugin)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-ocl-'));
    vi.stubEnv('TIERGATE_HOME', home);
    // OpenCode's input, broken in a way no release sends: reading it throws inside the factory.
    const input = {
      get directory(): string {
        throw new Error('no directory today');
      },
    };
    await expect(Tiergate(input as never)).resolves.toEqual({});
    const log = readFileSync(join(home, 'data', 'diagnostics.log'), 'utf8');
    expect(log).toMatch(/"where":"opencode:load".*no directory today/);
  });
});
