/**
 * Harness-declared prices (src/prices/declared.ts) as the lowest catalog layer, from the costs captured in the
 * fixtures: OpenCode chat.params `model.cost` (fake/big) and pi `ctx.model.cost` (fake/parent), USD per 1M tokens.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { decimalOf, ratesFromCost, resetDeclaredMemo } from '../../../src/prices/declared.js';
import { clearRuntimeCache, declareModelPrice, loadRuntime } from '../../../src/runtime/context.js';
import { fixture } from '../support/in-process.js';

const opencodeModel = fixture('opencode', 'chat.params.observe-child.json').input.model as { id: string; providerID: string; cost: unknown };
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
    expect(ratesFromCost(opencodeModel.cost)).toEqual({ input: '15', output: '75', cacheRead: '1.5', cacheWrite5m: '18.75', cacheWrite1h: '18.75' });
    expect(ratesFromCost(piModel.cost)).toEqual({ input: '3', output: '15', cacheRead: '0.3', cacheWrite5m: '3.75', cacheWrite1h: '3.75' });
    expect(ratesFromCost({ input: 1, output: 2, cache_read: 0.1 })).toMatchObject({ cacheRead: '0.1', cacheWrite5m: null });
  });

  it('declares nothing for an all-zero, missing, negative or non-numeric cost (never $0 by default)', () => {
    for (const c of [{ input: 0, output: 0 }, { input: 0, output: 0, cache: { read: 0, write: 0 } }, null, 'x', { input: -1, output: 2 }, { input: '3', output: 15 }, { input: 3 }]) {
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
    declareModelPrice(env, 'opencode', `${opencodeModel.providerID}/${opencodeModel.id}`, opencodeModel.cost);
    const r = loadRuntime(env, project).prices.resolve('fake/big', 'opencode');
    expect(r.price).toMatchObject({ source: 'harness', rates: { input: '15', output: '75' } });
    expect(r.catalogVersion).toMatch(/^harness-/);
    // pi's own bill for the same usage on the same rates (reference/pi.md §5): $0.03825.
    const priced = loadPricer(env, project).price('fake/big', 'opencode', { input: 1500, output: 200, cacheRead: 500, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 });
    expect(priced).toMatchObject({ picoUsd: 38_250_000_000n, modelId: 'big' });
  });

  it('pi: ctx.model.cost prices the parent', () => {
    const { env, project } = home();
    declareModelPrice(env, 'pi', `${piModel.provider}/${piModel.id}`, piModel.cost);
    expect(loadRuntime(env, project).prices.resolve('fake/parent', 'pi').price).toMatchObject({ source: 'harness', rates: { input: '3' } });
  });

  it('a curated catalog wins over a declaration for a model it knows; a policy override wins over both', () => {
    const { env, project } = home();
    const catalog = loadRuntime(env, project).prices.resolve('gpt-6-luna', 'opencode');
    expect(catalog.price).not.toBeNull();
    declareModelPrice(env, 'opencode', 'openai/gpt-6-luna', { input: 999, output: 999 });
    declareModelPrice(env, 'opencode', 'fake/big', opencodeModel.cost);
    expect(loadRuntime(env, project).prices.resolve('gpt-6-luna', 'opencode').price).toEqual(catalog.price);
    writeFileSync(join(project, '.tiergate.json'), JSON.stringify({ priceOverrides: { big: { input: '1', output: '2' } } }));
    clearRuntimeCache();
    expect(loadRuntime(env, project).prices.resolve('fake/big', 'opencode').price).toMatchObject({ source: 'override', rates: { input: '1' } });
  });

  it('the same declaration again writes nothing and keeps the layer version; a changed one changes it', () => {
    const { env, project } = home();
    declareModelPrice(env, 'opencode', 'fake/big', opencodeModel.cost);
    const v1 = loadRuntime(env, project).prices.catalogVersion;
    resetDeclaredMemo();
    declareModelPrice(env, 'opencode', 'fake/big', opencodeModel.cost);
    clearRuntimeCache();
    expect(loadRuntime(env, project).prices.catalogVersion).toBe(v1);
    declareModelPrice(env, 'opencode', 'fake/big', { input: 16, output: 75 });
    expect(loadRuntime(env, project).prices.catalogVersion).not.toBe(v1);
    expect(loadRuntime(env, project).prices.resolve('fake/big', 'opencode').price?.rates.input).toBe('16');
  });
});
