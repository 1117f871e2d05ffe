import { describe, expect, it } from 'vitest';
import { fromHarnessCatalog } from '../../../src/prices/formats/harness-catalog.js';
import { fromLiteLLM } from '../../../src/prices/formats/litellm.js';
import { fromModelsDev } from '../../../src/prices/formats/models-dev.js';
import { fromOpenRouter } from '../../../src/prices/formats/openrouter.js';

const src = { source: 'test-src' };
const byId = <T extends { id: string }>(rows: T[]) => Object.fromEntries(rows.map((r) => [r.id, r]));

describe('OpenRouter format', () => {
  const json = {
    data: [
      {
        id: 'openai/gpt-6-astra',
        context_length: 1050000,
        pricing: {
          prompt: '0.00001',
          completion: '0.00005',
          input_cache_read: '0.000001',
          input_cache_write: '0.0000125',
          request: '0',
          internal_reasoning: '0',
          web_search: '0.01',
          overrides: [
            { min_prompt_tokens: 272000, prompt: '0.00002', completion: '0.000075', input_cache_read: '0.000002' },
          ],
        },
      },
      { id: 'openai/gpt-6-astra:batch', pricing: { prompt: '0.000005', completion: '0.000025' } },
      { id: '~anthropic/claude-opus-latest', pricing: { prompt: '0.000005', completion: '0.000025' } },
      {
        id: 'qwen/qwen3.7-flash',
        pricing: {
          prompt: '0.00000003',
          completion: '0.00000013',
          overrides: [
            { min_prompt_tokens: 256000, prompt: '0.0000002', completion: '0.0000008' },
            { min_prompt_tokens: 32000, prompt: '0.0000001', completion: '0.0000004' },
          ],
        },
      },
      {
        id: 'anthropic/claude-sonnet-4.5',
        pricing: { prompt: '0.000003', completion: '0.000015', input_cache_write_1h: '0.000006' },
      },
      {
        id: 'deepseek/x',
        pricing: {
          prompt: '0.0000002',
          completion: '0.0000006',
          overrides: [{ utc_days: ['monday'], prompt: '1', completion: '1' }],
        },
      },
      { id: 'x/per-request', pricing: { prompt: '0.000001', completion: '0.000002', request: '0.005' } },
      { id: 'x/free', pricing: { prompt: '0', completion: '0' } },
      { id: 'bad', pricing: { prompt: 0.1, completion: '1' } },
      'junk',
    ],
  };
  const r = fromOpenRouter(json, src);
  const rows = byId(r.rows);

  it('converts per-token strings to exact per-1M decimals', () => {
    expect(rows['gpt-6-astra']!.rates).toEqual({
      input: '10',
      output: '50',
      cacheRead: '1',
      cacheWrite5m: '12.5',
      cacheWrite1h: null,
    });
    expect(rows['qwen3.7-flash']!.rates.input).toBe('0.03');
    expect(rows['claude-sonnet-4-5']!.rates.cacheWrite1h).toBe('6');
    expect(rows['gpt-6-astra']!.contextWindow).toBe(1050000);
    expect(rows['gpt-6-astra']!.source).toBe('test-src');
  });

  it('encodes tiers with the provider rule: OpenAI strict, Qwen inclusive, sorted', () => {
    expect(rows['gpt-6-astra']!.longContext).toEqual([
      {
        threshold: 272000,
        inclusive: false,
        rule: 'whole-request',
        rates: { input: '20', output: '75', cacheRead: '2', cacheWrite5m: null, cacheWrite1h: null },
      },
    ]);
    expect(rows['qwen3.7-flash']!.longContext.map((t) => [t.threshold, t.inclusive])).toEqual([
      [32000, true],
      [256000, true],
    ]);
  });

  it('keeps per-request fees as a field, not a zero', () => {
    expect(rows['per-request']!.perRequestFee).toBe('0.005');
    expect(rows['gpt-6-astra']!.perRequestFee).toBeNull();
    expect(rows['gpt-6-astra']!.reasoningRate).toBeNull();
  });

  it('skips batch, floating, zero-priced and invalid entries with counted reasons', () => {
    expect(Object.keys(rows).sort()).toEqual(['claude-sonnet-4-5', 'gpt-6-astra', 'per-request', 'qwen3.7-flash', 'x']);
    expect(r.skipped).toBe(5);
    expect(r.notes.join('\n')).toMatch(/skipped 2: invalid entry/);
    expect(r.notes.join('\n')).toMatch(/time-of-day/);
    expect(rows.x!.rates.input).toBe('0.2');
  });

  it('rejects something that is not a models list', () => {
    expect(fromOpenRouter({ nope: 1 }, src).rows).toEqual([]);
    expect(fromOpenRouter(null, src).notes[0]).toMatch(/not an OpenRouter/);
  });
});

describe('LiteLLM format', () => {
  const json = {
    sample_spec: { input_cost_per_token: 0 },
    'claude-sonnet-4-5': {
      litellm_provider: 'anthropic',
      input_cost_per_token: 3e-6,
      output_cost_per_token: 1.5e-5,
      cache_creation_input_token_cost: 3.75e-6,
      cache_read_input_token_cost: 3e-7,
      input_cost_per_token_above_200k_tokens: 6e-6,
      output_cost_per_token_above_200k_tokens: 2.25e-5,
      cache_read_input_token_cost_above_200k_tokens: 6e-7,
      max_input_tokens: 1000000,
    },
    'claude-sonnet-4-5-20250929': {
      litellm_provider: 'anthropic',
      input_cost_per_token: 3e-6,
      output_cost_per_token: 1.5e-5,
    },
    'us.anthropic.claude-opus-5': { input_cost_per_token: 5.5e-6, output_cost_per_token: 2.75e-5 },
    'global.anthropic.claude-opus-5': { input_cost_per_token: 5e-6, output_cost_per_token: 2.5e-5 },
    'azure/gpt-6-astra-2026-09-03': {
      litellm_provider: 'azure',
      input_cost_per_token: 1e-5,
      output_cost_per_token: 5e-5,
    },
    'gpt-5.5': {
      litellm_provider: 'openai',
      input_cost_per_token: 5e-6,
      output_cost_per_token: 3e-5,
      tiered_pricing: [
        { range: [0, 272000], input_cost_per_token: 5e-6, output_cost_per_token: 3e-5 },
        { range: [272001, 1050000], input_cost_per_token: 1e-5, output_cost_per_token: 4.5e-5 },
      ],
    },
    'anthropic.claude-mythos-preview': { input_cost_per_token: 0, output_cost_per_token: 0 },
    'dall-e-3': { litellm_provider: 'openai', output_cost_per_image: 0.04 },
  };
  const r = fromLiteLLM(json, src);
  const rows = byId(r.rows);

  it('converts per-token numbers exactly', () => {
    expect(rows['claude-sonnet-4-5']!.rates).toEqual({
      input: '3',
      output: '15',
      cacheRead: '0.3',
      cacheWrite5m: '3.75',
      cacheWrite1h: null,
    });
    expect(rows['claude-sonnet-4-5']!.contextWindow).toBe(1000000);
  });

  it('reads _above_ fields and tiered_pricing as tiers with the provider rule (Anthropic: strict, whole request)', () => {
    expect(rows['claude-sonnet-4-5']!.longContext).toEqual([
      {
        threshold: 200000,
        inclusive: false,
        rule: 'whole-request',
        rates: { input: '6', output: '22.5', cacheRead: '0.6', cacheWrite5m: null, cacheWrite1h: null },
      },
    ]);
    expect(rows['gpt-5.5']!.longContext).toMatchObject([
      { threshold: 272000, inclusive: false, rates: { input: '10', output: '45' } },
    ]);
  });

  it('one row per model; a regional Bedrock price that differs is kept under its own name', () => {
    expect(rows['claude-opus-5']!.rates.input).toBe('5');
    expect(rows['us.anthropic.claude-opus-5']!.rates.input).toBe('5.5');
    expect(rows['gpt-6-astra']!.provider).toBe('openai');
    expect(r.rows.filter((x) => x.id.startsWith('claude-sonnet-4-5'))).toHaveLength(1);
  });

  it('never turns a zero or missing token price into a row', () => {
    expect(rows['claude-mythos-preview']).toBeUndefined();
    expect(rows['dall-e-3']).toBeUndefined();
    expect(r.skipped).toBe(2);
  });
});

describe('models.dev format', () => {
  const json = {
    openai: {
      models: {
        'gpt-6-luna': {
          id: 'gpt-6-luna',
          cost: {
            input: 0.1,
            output: 0.5,
            cache_read: 0.01,
            cache_write: 0.125,
            tiers: [
              {
                input: 0.2,
                output: 0.75,
                cache_read: 0.02,
                cache_write: 0.25,
                tier: { type: 'context', size: 272001 },
              },
            ],
          },
          limit: { context: 1050000 },
        },
        'gpt-5.4': { cost: { input: 2.5, output: 15, context_over_200k: { input: 5, output: 22.5 } } },
        o9: { cost: { input: 1, output: 4, reasoning: 8 } },
        'no-cost': { name: 'x' },
      },
    },
    alibaba: {
      models: {
        'qwen3.7-plus': {
          cost: { input: 0.5, output: 3, tiers: [{ input: 2, output: 6, tier: { type: 'context', size: 256000 } }] },
        },
        'glm-5.2': { cost: { input: 9, output: 9 } },
      },
    },
    zai: { models: { 'glm-5.2': { cost: { input: 1.4, output: 4.4, cache_read: 0.26 } } } },
    'some-reseller': { models: { 'gpt-6-luna': { cost: { input: 0, output: 0 } } } },
  };
  const r = fromModelsDev(json, src);
  const rows = byId(r.rows);

  it('reads makers only, per 1M, with a strict OpenAI bound folded from 272001', () => {
    expect(rows['gpt-6-luna']!.rates).toEqual({
      input: '0.1',
      output: '0.5',
      cacheRead: '0.01',
      cacheWrite5m: '0.125',
      cacheWrite1h: null,
    });
    expect(rows['gpt-6-luna']!.longContext[0]).toMatchObject({
      threshold: 272000,
      inclusive: false,
      rule: 'whole-request',
    });
    expect(rows['gpt-6-luna']!.contextWindow).toBe(1050000);
    expect(r.notes.join('\n')).toMatch(/1 reseller/);
  });

  it("reads context_over_200k as OpenAI's 272k tier", () => {
    expect(rows['gpt-5.4']!.longContext).toMatchObject([{ threshold: 272000, rates: { input: '5', output: '22.5' } }]);
  });

  it('keeps a distinct reasoning rate as a field', () => {
    expect(rows.o9!.reasoningRate).toBe('8');
  });

  it('prefers the maker over another first-party host of the same model', () => {
    expect(rows['glm-5.2']!.rates.input).toBe('1.4');
    expect(rows['qwen3.7-plus']!.longContext[0]).toMatchObject({ threshold: 256000, inclusive: true });
    expect(r.skipped).toBe(1);
  });
});

describe('harness catalog format', () => {
  const json = {
    extracted_on: '2026-12-02',
    harnesses: {
      'claude-code': {
        best: 'opus',
        aliases: {
          opus: { first_party: 'claude-opus-5-5', per_provider: { foundry: 'claude-opus-4-6' } },
          sonnet: { first_party: 'claude-sonnet-5-5', per_provider: { bedrock: 'claude-sonnet-4-5' } },
        },
      },
    },
    models: {
      'claude-haiku-5-5': {
        provider: 'anthropic',
        context_window: 1000000,
        price: { input: 0.1, output: 0.5, cache_read: 0.01, cache_write_5m: 0.125, cache_write_1h: 0.2 },
        long_context: {
          threshold_tokens: 100000,
          price: { input: 0.5, output: 2.5, cache_read: 0.05, cache_write_5m: 0.625, cache_write_1h: 1 },
        },
      },
      'gpt-6-sol': {
        provider: 'openai',
        price: { input: 2, output: 10, cache_read: 0.2, cache_write: 2.5 },
        long_context: null,
      },
      'gpt-6.1-sol': { provider: 'openai', price: null },
    },
  };
  const r = fromHarnessCatalog(json, src);
  const rows = byId(r.rows);

  it("reads Claude 5m/1h and OpenAI single cache writes, and Claude Code's strict long prompt", () => {
    expect(rows['claude-haiku-5-5']!.rates.cacheWrite1h).toBe('0.2');
    expect(rows['claude-haiku-5-5']!.longContext).toEqual([
      {
        threshold: 100000,
        inclusive: false,
        rule: 'whole-request',
        rates: { input: '0.5', output: '2.5', cacheRead: '0.05', cacheWrite5m: '0.625', cacheWrite1h: '1' },
      },
    ]);
    expect(rows['gpt-6-sol']!.rates.cacheWrite5m).toBe('2.5');
  });

  it('lists unpriced models instead of pricing them', () => {
    expect(rows['gpt-6.1-sol']).toBeUndefined();
    expect(r.unpriced).toEqual(['gpt-6.1-sol']);
  });

  it('emits one alias table per Claude provider, falling back to the first-party target', () => {
    expect(r.aliases.claude).toMatchObject({
      opus: 'claude-opus-5-5',
      sonnet: 'claude-sonnet-5-5',
      best: 'claude-opus-5-5',
    });
    expect(r.aliases['claude@foundry']).toMatchObject({
      opus: 'claude-opus-4-6',
      sonnet: 'claude-sonnet-5-5',
      best: 'claude-opus-4-6',
    });
    expect(r.aliases['claude@bedrock']).toMatchObject({ opus: 'claude-opus-5-5', sonnet: 'claude-sonnet-4-5' });
  });
});
