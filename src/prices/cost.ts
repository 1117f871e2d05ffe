/**
 * Cost of a usage record under a price row, exact to the pico-dollar (decimal.ts). Rules:
 * - Missing cache prices default to multiples of the input rate (the ccusage convention, reference/pricing.md §4):
 *   cache read 0.1x, 5-minute write 1.25x, 1-hour write 2x. A tier's missing cache prices default from the tier's input.
 * - Long context, per request: the prompt is input + cache read + cache writes (what Claude Code 2.1.328 tests).
 *   `whole-request`: past the threshold (`>=` if the tier is inclusive, else `>`), every category of the request is
 *   billed at the tier's rates; the highest tier reached wins. `above-only`: each category's tokens past a threshold
 *   are billed at that tier, the rest at the lower rates (the ccusage reading of LiteLLM's `_above_` fields).
 * - A record summing several requests (`usage.requests > 1`) cannot say which request crossed a threshold. When the
 *   summed prompt does not cross it, none did: exact. Otherwise the tier is decided on the average request (tokens /
 *   requests) and `exact` is false, so reports can mark the figure as an estimate.
 */
import type { LongContextTier, PriceRow, Rates } from '../contracts/prices.js';
import type { Usage } from '../contracts/usage.js';
import { multiplyDecimal, picoToUsd, yoctoToPico, yoctoUsd } from './decimal.js';

export const CACHE_DEFAULTS = { read: '0.1', write5m: '1.25', write1h: '2' } as const;

export interface Cost {
  picoUsd: bigint;
  /** USD as an exact decimal string ("0.03825"). */
  usd: string;
  /** The long-context tier applied (whole-request), or null for base rates. */
  tierThreshold: number | null;
  /** False when the tier was decided from an average over several requests. */
  exact: boolean;
}

type Filled = { input: string; output: string; cacheRead: string; cacheWrite5m: string; cacheWrite1h: string };

// Per rates object (catalog rows are immutable once loaded): the defaults cost a decimal multiply and format each.
const filledByRates = new WeakMap<Rates, Filled>();

/** Rates with the documented defaults in place of missing cache prices. */
export function effectiveRates(r: Rates): Filled {
  let f = filledByRates.get(r);
  if (!f) {
    f = fillRates(r);
    filledByRates.set(r, f);
  }
  return f;
}

function fillRates(r: Rates): Filled {
  return {
    input: r.input,
    output: r.output,
    cacheRead: r.cacheRead ?? multiplyDecimal(r.input, CACHE_DEFAULTS.read),
    cacheWrite5m: r.cacheWrite5m ?? multiplyDecimal(r.input, CACHE_DEFAULTS.write5m),
    cacheWrite1h: r.cacheWrite1h ?? multiplyDecimal(r.input, CACHE_DEFAULTS.write1h),
  };
}

const KINDS = ['input', 'output', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h'] as const;

function flatYocto(u: Usage, r: Filled): bigint {
  let sum = 0n;
  for (const k of KINDS) sum += yoctoUsd(r[k], u[k]);
  return sum;
}

export function promptTokens(u: Usage): number {
  return u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h;
}

/** prompt / requests crosses the tier's bound, compared without division. */
function reaches(prompt: number, requests: number, t: LongContextTier): boolean {
  const bound = t.threshold * requests;
  return t.inclusive ? prompt >= bound : prompt > bound;
}

function finish(yocto: bigint, tierThreshold: number | null, exact: boolean): Cost {
  const picoUsd = yoctoToPico(yocto);
  // Formatted on first read: a scan prices every request and reads only picoUsd.
  return {
    picoUsd,
    tierThreshold,
    exact,
    get usd() {
      return picoToUsd(picoUsd);
    },
  };
}

export function costOf(usage: Usage, row: PriceRow): Cost {
  const base = effectiveRates(row.rates);
  const requests = Math.max(1, usage.requests);
  const prompt = promptTokens(usage);
  const tiers = [...row.longContext].sort((a, b) => a.threshold - b.threshold);

  const whole = tiers.filter((t) => t.rule === 'whole-request');
  const above = tiers.filter((t) => t.rule === 'above-only');

  // Whole-request tiers: the highest one the (average) request reaches prices everything.
  const reachedOnTotal = whole.filter((t) => reaches(prompt, 1, t));
  const exact = requests === 1 || reachedOnTotal.length === 0;
  const applied = whole.filter((t) => reaches(prompt, requests, t)).at(-1) ?? null;
  if (applied) return finish(flatYocto(usage, effectiveRates(applied.rates)), applied.threshold, exact);
  if (above.length === 0) return finish(flatYocto(usage, base), null, exact);

  // Above-only tiers: each category piecewise over the thresholds, per (average) request.
  const bands = [
    { from: 0, rates: base },
    ...above.map((t) => ({ from: t.threshold, rates: effectiveRates(t.rates) })),
  ];
  let yocto = 0n;
  let crossed = false;
  for (const k of KINDS) {
    const n = usage[k];
    for (let i = 0; i < bands.length; i++) {
      const lo = bands[i]!.from * requests;
      const hi = i + 1 < bands.length ? bands[i + 1]!.from * requests : Infinity;
      const inBand = Math.max(0, Math.min(n, hi) - lo);
      if (inBand > 0) {
        yocto += yoctoUsd(bands[i]!.rates[k], inBand);
        if (i > 0) crossed = true;
      }
    }
  }
  return finish(yocto, null, requests === 1 || !crossed ? exact : false);
}
