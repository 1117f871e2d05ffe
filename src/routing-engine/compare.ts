/**
 * Point-by-point price comparison of a child against its parent. A child is "pricier" if ANY rate, at ANY context
 * size either model has a tier for, is higher: the ceiling is strict so no usage mix can make the child cost more.
 */
import type { Comparison, PricePoint } from '../contracts/decision.js';
import type { PriceRow, Rates, Resolution } from '../contracts/prices.js';
import { compareDecimal, multiplyDecimal } from '../prices/decimal.js';

const KINDS = ['input', 'output', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h'] as const;
type Kind = (typeof KINDS)[number];

/** Cache rates a catalog leaves out default to the usual multiples of input (reference/pricing.md §4). */
export function effectiveRate(rates: Rates, kind: Kind): string {
  const own = rates[kind];
  if (own !== null) return own;
  if (kind === 'cacheRead') return multiplyDecimal(rates.input, '0.1');
  if (kind === 'cacheWrite5m') return multiplyDecimal(rates.input, '1.25');
  return multiplyDecimal(rates.input, '2');
}

/** The rates that apply to a request whose prompt has `promptTokens` tokens. */
export function ratesAt(row: PriceRow, promptTokens: number): Rates {
  let applied = row.rates;
  for (const tier of [...row.longContext].sort((a, b) => a.threshold - b.threshold)) {
    const reached = tier.inclusive ? promptTokens >= tier.threshold : promptTokens > tier.threshold;
    if (reached) applied = tier.rates;
  }
  return applied;
}

/** Prompt sizes worth comparing at: 0 and the first size at which each tier of either model applies. */
function checkpoints(a: PriceRow, b: PriceRow): number[] {
  const sizes = new Set<number>([0]);
  for (const t of [...a.longContext, ...b.longContext]) sizes.add(t.inclusive ? t.threshold : t.threshold + 1);
  return [...sizes].sort((x, y) => x - y);
}

function hasOpaqueFees(row: PriceRow): boolean {
  const fee = row.perRequestFee !== null && compareDecimal(row.perRequestFee, '0') > 0;
  const reasoning = row.reasoningRate !== null && compareDecimal(row.reasoningRate, row.rates.output) !== 0;
  return fee || reasoning;
}

export function comparePrices(parent: Resolution, child: Resolution, catalogDate: string): Comparison {
  const base = { parent, child, catalogDate };
  if (!parent.price || !child.price) return { ...base, verdict: 'unknown', points: [] };
  if (hasOpaqueFees(parent.price) || hasOpaqueFees(child.price)) return { ...base, verdict: 'unknown', points: [] };

  const points: PricePoint[] = [];
  for (const at of checkpoints(parent.price, child.price)) {
    const p = ratesAt(parent.price, at);
    const c = ratesAt(child.price, at);
    for (const kind of KINDS) {
      const pr = effectiveRate(p, kind);
      const cr = effectiveRate(c, kind);
      const o = compareDecimal(cr, pr);
      points.push({
        kind,
        atPromptTokens: at,
        parent: pr,
        child: cr,
        order: o < 0 ? 'cheaper' : o > 0 ? 'pricier' : 'equal',
      });
    }
  }
  const verdict = points.some((x) => x.order === 'pricier')
    ? 'pricier'
    : points.every((x) => x.order === 'equal')
      ? 'equal'
      : 'cheaper';
  return { ...base, verdict, points };
}

/** True when a comparison says the child may run under the parent ceiling. */
export const withinCeiling = (c: Comparison): boolean => c.verdict === 'cheaper' || c.verdict === 'equal';
