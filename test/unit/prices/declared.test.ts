/**
 * Harness-declared prices (src/prices/declared.ts) as the lowest catalog layer, from the costs captured in the
 * fixtures: OpenCode chat.params `model.cost` (fake/big) and pi `ctx.model.cost` (fake/parent), USD per 1M tokens.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { decimalOf, loadDeclaredCatalog, ratesFromCost, resetDeclaredMemo } from '../../../src/prices/declared.js';
import { clearRuntimeCache, declareModelPrices, loadRuntime } from '../../../src/config/runtime.js';
import { createHooks } from '../../../src/adapters/opencode/plugin.js';
import { routeDispatch } from '../../../src/runtime/dispatch.js';
import { fixture, policyWith } from '../support/in-process.js';

const opencodeModel = fixture('opencode', 'chat.params.observe-child.json').input.model as {
  id: string;
  providerID: string;
  cost: unknown;
};
const piModel = fixture('pi', 'tool_call.observe.json').ctx.model as { id: string; provider: string; cost: unknown };

function home() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-declared-'));
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  return { env: { TIERGATE_HOME: join(dir, 'tg'), HOME: dir, TIERGATE_PRICE_REFRESH: 'off' }, project };
}

beforeEach(() => {
  resetDeclaredMemo();
  clearRuntimeCache();
});

describe('a harness cost object -> catalog rates (USD per 1M, both spellings)', () => {
  it('OpenCode {input, output, cache: {read, write}} and pi {input, output, cacheRead, cacheWrite}', () => {
    expect(ratesFromCost(opencodeModel.cost)).toEqual({
      input: '15',
      output: '75',
      cacheRead: '1.5',
      cacheWrite5m: '18.75',
      cacheWrite1h: '18.75',
    });
    expect(ratesFromCost(piModel.cost)).toEqual({
      input: '3',
      output: '15',
      cacheRead: '0.3',
      cacheWrite5m: '3.75',
      cacheWrite1h: '3.75',
    });
    expect(ratesFromCost({ input: 1, output: 2, cache_read: 0.1 })).toMatchObject({
      cacheRead: '0.1',
      cacheWrite5m: null,
    });
  });

  it('declares nothing for an all-zero, missing, negative or non-numeric cost (never $0 by default)', () => {
    for (const c of [
      { input: 0, output: 0 },
      { input: 0, output: 0, cache: { read: 0, write: 0 } },
      null,
      'x',
      { input: -1, output: 2 },
      { input: '3', output: 15 },
      { input: 3 },
    ]) {
      expect(ratesFromCost(c)).toBeNull();
    }
  });

  it('writes small rates as plain decimals', () => {
    expect(decimalOf(1e-7)).toBe('0.0000001');
    expect(decimalOf(0.3125)).toBe('0.3125');
  });
});

describe('the declared layer: below every catalog, above nothing', () => {
  it('prices a model no catalog knows, marked source harness, exactly as the harness itself bills it', () => {
    const { env, project } = home();
    expect(loadRuntime(env, project).prices.resolve('fake/big', 'opencode').price).toBeNull();
    declareModelPrices(env, 'opencode', [
      { model: `${opencodeModel.providerID}/${opencodeModel.id}`, cost: opencodeModel.cost },
    ]);
    const r = loadRuntime(env, project).prices.resolve('fake/big', 'opencode');
    expect(r.price).toMatchObject({ source: 'harness', rates: { input: '15', output: '75' } });
    expect(r.catalogVersion).toMatch(/^harness-/);
    // pi's own bill for the same usage on the same rates (reference/pi.md §5): $0.03825.
    const priced = loadPricer(env, project).price('fake/big', 'opencode', {
      input: 1500,
      output: 200,
      cacheRead: 500,
      cacheWrite5m: 0,
      cacheWrite1h: 0,
      reasoning: 0,
      requests: 1,
    });
    expect(priced).toMatchObject({ picoUsd: 38_250_000_000n, modelId: 'big' });
  });

  it('pi: ctx.model.cost prices the parent', () => {
    const { env, project } = home();
    declareModelPrices(env, 'pi', [{ model: `${piModel.provider}/${piModel.id}`, cost: piModel.cost }]);
    expect(loadRuntime(env, project).prices.resolve('fake/parent', 'pi').price).toMatchObject({
      source: 'harness',
      rates: { input: '3' },
    });
  });

  it('a curated catalog wins over a declaration for a model it knows; a policy override wins over both', () => {
    const { env, project } = home();
    const catalog = loadRuntime(env, project).prices.resolve('gpt-6-luna', 'opencode');
    expect(catalog.price).not.toBeNull();
    declareModelPrices(env, 'opencode', [{ model: 'openai/gpt-6-luna', cost: { input: 999, output: 999 } }]);
    declareModelPrices(env, 'opencode', [{ model: 'fake/big', cost: opencodeModel.cost }]);
    expect(loadRuntime(env, project).prices.resolve('gpt-6-luna', 'opencode').price).toEqual(catalog.price);
    // The user's file: a project file may not reprice (src/config/project-layer.ts).
    mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(
      join(env.TIERGATE_HOME, 'config', 'config.json'),
      JSON.stringify({ priceOverrides: { big: { input: '1', output: '2' } } }),
    );
    clearRuntimeCache();
    expect(loadRuntime(env, project).prices.resolve('fake/big', 'opencode').price).toMatchObject({
      source: 'override',
      rates: { input: '1' },
    });
  });

  it('a declared-prices file past 1 MiB is ignored, read no further than the cap, and says so', () => {
    const { env } = home();
    const prices = join(env.TIERGATE_HOME, 'data', 'prices');
    mkdirSync(prices, { recursive: true });
    writeFileSync(join(prices, 'harness-declared.json'), `{"entries":[]}${' '.repeat(1024 * 1024)}`);
    expect(loadDeclaredCatalog(env)).toBeNull();
    expect(readFileSync(join(env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')).toContain(
      'ignored: file too large',
    );
  });

  it('the same declaration again writes nothing and keeps the layer version; a changed one changes it', () => {
    const { env, project } = home();
    declareModelPrices(env, 'opencode', [{ model: 'fake/big', cost: opencodeModel.cost }]);
    const v1 = loadRuntime(env, project).prices.catalogVersion;
    resetDeclaredMemo();
    declareModelPrices(env, 'opencode', [{ model: 'fake/big', cost: opencodeModel.cost }]);
    clearRuntimeCache();
    expect(loadRuntime(env, project).prices.catalogVersion).toBe(v1);
    declareModelPrices(env, 'opencode', [{ model: 'fake/big', cost: { input: 16, output: 75 } }]);
    expect(loadRuntime(env, project).prices.catalogVersion).not.toBe(v1);
    expect(loadRuntime(env, project).prices.resolve('fake/big', 'opencode').price?.rates.input).toBe('16');
  });
});

describe('OpenCode: configured model costs price the dispatch no catalog could', () => {
  /** provider.fake.models as in reference/opencode.md §1 (the config OpenCode hands the plugin). */
  const providerConfig = () => ({
    ...fixture('opencode', 'config.observe.json'),
    provider: {
      fake: {
        models: {
          parent: { cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } },
          big: { cost: { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 } },
          small: { cost: { input: 0.25, output: 1.25 } },
          local: { cost: { input: 0, output: 0 } },
        },
      },
    },
  });

  async function dispatchReason(withCosts: boolean): Promise<string> {
    const { env } = home();
    const reasons: string[] = [];
    const hooks = createHooks(
      { directory: '/project' },
      {
        env: { ...env, TIERGATE_CALLBACK_DEADLINE_MS: '2000' },
        now: () => 1000,
        record: () => undefined,
        refresh: () => undefined,
        policy: () => policyWith({ cheap: 'fake/small' }),
        route: (obs, e) => {
          const d = routeDispatch(obs, e);
          reasons.push(d.reason);
          return d;
        },
      },
    );
    const cfg = withCosts ? providerConfig() : fixture('opencode', 'config.observe.json');
    await hooks.config(cfg);
    // chat.params without model.cost, so only the config can have declared the prices.
    const params = fixture('opencode', 'chat.params.observe-parent.json').input;
    await hooks['chat.params']({ ...params, model: { ...params.model, cost: undefined } });
    const before = fixture('opencode', 'tool.execute.before.observe.json');
    await hooks['tool.execute.before'](before.input, before.output);
    if (withCosts) {
      const r = loadRuntime(env, null).prices;
      expect(r.resolve('fake/small', 'opencode').price).toMatchObject({ source: 'harness', rates: { input: '0.25' } });
      // An all-zero cost declares nothing: the local model stays unpriced, never $0.
      expect(r.resolve('fake/local', 'opencode').price).toBeNull();
    }
    return reasons.join(',');
  }

  it('without declared costs the pricier child is unknown-price; with them it is over the ceiling', async () => {
    expect(await dispatchReason(false)).toBe('unknown-price-allowed');
    resetDeclaredMemo();
    clearRuntimeCache();
    expect(await dispatchReason(true)).toMatch(/^over-ceiling-/);
  });
});
