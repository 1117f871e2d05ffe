/**
 * A small price table for engine tests, with list prices from reference/pricing.md §6 (USD per 1M tokens). The engine
 * takes any PriceLookup; the real catalog's resolution rules are tested in test/unit/prices.
 */
import type { Harness } from '../../../src/contracts/harness.js';
import type { PriceRow, Resolution } from '../../../src/contracts/prices.js';
import type { PriceLookup } from '../../../src/routing-engine/decide.js';

/** A test price row: USD per 1M tokens, no long-context tier, fee or reasoning rate unless extra sets one. */
export const priceRow = (
  id: string,
  provider: string,
  input: string,
  output: string,
  cacheRead: string | null,
  extra: Partial<PriceRow> = {},
): PriceRow => ({
  id,
  provider,
  rates: { input, output, cacheRead, cacheWrite5m: null, cacheWrite1h: null },
  longContext: [],
  perRequestFee: null,
  reasoningRate: null,
  contextWindow: null,
  source: 'test',
  ...extra,
});

const row = priceRow;

export const ROWS: Record<string, PriceRow> = {
  'claude-opus-5-5': row('claude-opus-5-5', 'anthropic', '4', '20', '0.2'),
  'claude-sonnet-5-5': row('claude-sonnet-5-5', 'anthropic', '2', '10', '0.1'),
  'claude-haiku-5-5': row('claude-haiku-5-5', 'anthropic', '0.1', '0.5', '0.01', {
    longContext: [
      {
        threshold: 100_000,
        inclusive: false,
        rule: 'whole-request',
        rates: { input: '0.5', output: '2.5', cacheRead: '0.05', cacheWrite5m: null, cacheWrite1h: null },
      },
    ],
  }),
  'claude-fable-5-2': row('claude-fable-5-2', 'anthropic', '8', '40', '0.2'),
  'gpt-6-astra': row('gpt-6-astra', 'openai', '10', '50', '1'),
  'gpt-6-sol': row('gpt-6-sol', 'openai', '2', '10', '0.2'),
  'gpt-6-luna': row('gpt-6-luna', 'openai', '0.1', '0.5', '0.01'),
  'gpt-6.1-sol': row('gpt-6.1-sol', 'openai', '2', '10', '0.1'),
  // Cheaper input, pricier output than sonnet-5-5: a crossover.
  'cross-model': row('cross-model', 'test', '1', '12', '0.1'),
  'fee-model': row('fee-model', 'test', '0.1', '0.1', '0.01', { perRequestFee: '0.01' }),
};

const ALIASES: Record<string, string> = {
  opus: 'claude-opus-5-5',
  sonnet: 'claude-sonnet-5-5',
  haiku: 'claude-haiku-5-5',
  fable: 'claude-fable-5-2',
};

export function testLookup(extra: Record<string, PriceRow> = {}): PriceLookup {
  const rows = { ...ROWS, ...extra };
  return {
    catalogDate: '2026-12-02',
    catalogVersion: 'test',
    resolve(name: string, _h: Harness): Resolution {
      const aliased = ALIASES[name];
      const id = aliased ?? name;
      const price = rows[id] ?? null;
      return {
        query: name,
        id: price ? id : null,
        how: price ? (aliased ? 'alias' : 'exact') : 'unknown',
        note: null,
        price,
        catalogVersion: price ? 'test' : null,
      };
    },
  };
}
