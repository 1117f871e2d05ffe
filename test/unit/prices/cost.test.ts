import { describe, expect, it } from 'vitest';
import type { LongContextTier, PriceRow, Rates } from '../../../src/contracts/prices.js';
import { emptyUsage, type Usage } from '../../../src/contracts/usage.js';
import { costOf, effectiveRates } from '../../../src/prices/cost.js';
import { bundled } from './catalog.js';

const rates = (
  input: string,
  output: string,
  cacheRead: string | null = null,
  w5: string | null = null,
  w1: string | null = null,
): Rates => ({ input, output, cacheRead, cacheWrite5m: w5, cacheWrite1h: w1 });
const row = (r: Rates, longContext: LongContextTier[] = []): PriceRow => ({
  id: 'm',
  provider: 'x',
  rates: r,
  longContext,
  perRequestFee: null,
  reasoningRate: null,
  contextWindow: null,
  source: 'test',
});
const usage = (u: Partial<Usage>): Usage => ({ ...emptyUsage(), ...u });

describe('costOf', () => {
  it('matches the OpenCode 1.18.33 example: (1500x15 + 200x75 + 500x1.5)/1e6 = 0.03825', () => {
    const opus41 = bundled.models['claude-opus-4-1']!;
    expect(costOf(usage({ input: 1500, output: 200, cacheRead: 500 }), opus41).usd).toBe('0.03825');
  });

  it('prices cache writes 5m and 1h separately (Claude Code split)', () => {
    const opus55 = bundled.models['claude-opus-5-5']!; // 4 / 20 / 0.2 / 5 / 8
    const c = costOf(usage({ input: 1000, output: 100, cacheRead: 2000, cacheWrite5m: 300, cacheWrite1h: 50 }), opus55);
    // 1000x4 + 100x20 + 2000x0.2 + 300x5 + 50x8 = 4000 + 2000 + 400 + 1500 + 400 = 8300 -> $0.0083
    expect(c.usd).toBe('0.0083');
    expect(c.exact).toBe(true);
  });

  it('defaults missing cache prices to 0.1x / 1.25x / 2x input', () => {
    const r = row(rates('10', '50'));
    expect(effectiveRates(r.rates)).toEqual({
      input: '10',
      output: '50',
      cacheRead: '1',
      cacheWrite5m: '12.5',
      cacheWrite1h: '20',
    });
    // 1e6 tokens of each cache kind: 1 + 12.5 + 20 = 33.5
    expect(costOf(usage({ cacheRead: 1_000_000, cacheWrite5m: 1_000_000, cacheWrite1h: 1_000_000 }), r).usd).toBe(
      '33.5',
    );
  });

  describe('Claude Haiku 5.5 long prompt (strict > 100,000, whole request)', () => {
    const haiku = bundled.models['claude-haiku-5-5']!;
    it('at exactly 100,000 prompt tokens: base rates', () => {
      const c = costOf(usage({ input: 60_000, cacheRead: 40_000, output: 1000 }), haiku);
      // 60000x0.1 + 40000x0.01 + 1000x0.5 = 6000 + 400 + 500 = 6900 -> 0.0069
      expect(c.usd).toBe('0.0069');
      expect(c.tierThreshold).toBeNull();
    });
    it('one token more: every category at the long-prompt rates, output included', () => {
      const c = costOf(usage({ input: 60_001, cacheRead: 40_000, output: 1000 }), haiku);
      // 60001x0.5 + 40000x0.05 + 1000x2.5 = 30000.5 + 2000 + 2500 = 34500.5 -> 0.0345005
      expect(c.usd).toBe('0.0345005');
      expect(c.tierThreshold).toBe(100_000);
    });
    it('cache writes count towards the prompt', () => {
      expect(costOf(usage({ input: 1, cacheWrite5m: 100_000 }), haiku).tierThreshold).toBe(100_000);
    });
  });

  it('OpenAI 272k (strict, whole request): gpt-6-sol', () => {
    const sol = bundled.models['gpt-6-sol']!;
    expect(costOf(usage({ input: 272_000 }), sol).usd).toBe('0.544'); // 272000 x 2
    // 272001 x 4 + 1000 x 15 = 1088004 + 15000 = 1103004 -> 1.103004
    expect(costOf(usage({ input: 272_001, output: 1000 }), sol).usd).toBe('1.103004');
  });

  it('an inclusive tier applies at exactly its threshold (Qwen via models.dev)', () => {
    const qwen = bundled.models['qwen3.7-plus']!;
    expect(qwen.longContext[0]).toMatchObject({ threshold: 256_000, inclusive: true });
    expect(costOf(usage({ input: 255_999 }), qwen).tierThreshold).toBeNull();
    expect(costOf(usage({ input: 256_000 }), qwen).tierThreshold).toBe(256_000);
  });

  it('picks the highest tier reached', () => {
    const r = row(rates('1', '2'), [
      { threshold: 32_000, inclusive: true, rule: 'whole-request', rates: rates('2', '4') },
      { threshold: 128_000, inclusive: true, rule: 'whole-request', rates: rates('3', '6') },
    ]);
    expect(costOf(usage({ input: 200_000 }), r)).toMatchObject({ usd: '0.6', tierThreshold: 128_000 });
    expect(costOf(usage({ input: 50_000 }), r)).toMatchObject({ usd: '0.1', tierThreshold: 32_000 });
  });

  it('above-only tiers bill only the tokens past the threshold, per category', () => {
    const r = row(rates('3', '15', '0.3'), [
      { threshold: 200_000, inclusive: false, rule: 'above-only', rates: rates('6', '22.5', '0.6') },
    ]);
    // input: 200000x3 + 50000x6 = 900000; output 1000x15 = 15000 -> 915000 -> 0.915
    expect(costOf(usage({ input: 250_000, output: 1000 }), r).usd).toBe('0.915');
  });

  it('several requests in one record: exact when the sum stays under the threshold, else decided on the average', () => {
    const haiku = bundled.models['claude-haiku-5-5']!;
    const under = costOf(usage({ input: 90_000, requests: 3 }), haiku);
    expect(under).toMatchObject({ exact: true, tierThreshold: null });
    // 150,000 over 2 requests: average 75,000 <= 100,000 -> base, but not exact.
    const avgBelow = costOf(usage({ input: 150_000, requests: 2 }), haiku);
    expect(avgBelow).toMatchObject({ exact: false, tierThreshold: null, usd: '0.015' });
    // 300,000 over 2 requests: average 150,000 -> tier.
    expect(costOf(usage({ input: 300_000, requests: 2 }), haiku)).toMatchObject({
      exact: false,
      tierThreshold: 100_000,
      usd: '0.15',
    });
  });

  it('zero usage costs zero', () => {
    expect(costOf(emptyUsage(), bundled.models['gpt-6-astra']!)).toMatchObject({ picoUsd: 0n, usd: '0' });
  });
});
