/**
 * What tiergate's own decisions saved (issue 29): a corrected child's usage priced at the model it would have run on
 * without tiergate, at the rates its decision record saw (observer/ledger/decisions.ts), minus what it cost on the
 * model that ran. Corrections by agent switch count like model rewrites: the record knows the agent's own model.
 * Budget downshifts count too, and are also summed apart (their own label). A correction recorded before the decision
 * record existed keeps the old estimate, counted apart as "estimated (dispatch not recorded)": the model the dispatch
 * named, else the parent's, priced at the catalog in effect when the report runs.
 */
import type { Harness } from '../contracts/harness.js';
import type { PriceRow } from '../contracts/prices.js';
import type { Pricer } from '../observer/pricing.js';
import { costOf } from '../prices/cost.js';

/** One run of a corrected dispatch, as the ledger's SQL returns it (cost as integer text, usage columns as stored). */
export type CorrectedRun = {
  g: string | null;
  harness: Harness;
  baseline: string | null;
  cost: string | null;
  first: number;
  input: number | null;
  output: number | null;
  cache_read: number | null;
  cache_write_5m: number | null;
  cache_write_1h: number | null;
  reasoning: number | null;
  requests: number | null;
  /** The decision record's kind and the without-tiergate model's rates ("in,out,cacheRead,cw5m,cw1h"); null before it. */
  kind?: string | null;
  rates?: string | null;
};

/**
 * Per group: corrected dispatches (each once), and the saving over the runs priced both ways; `budget` the part from
 * budget downshifts, `estimated` the runs priced by the old estimate (no decision record).
 */
export type DecidedAgg = {
  g: string | null;
  corrected: number;
  saved: bigint | null;
  savedRuns: number;
  budget?: bigint | null;
  estimated?: number;
};

/** Flat base rates as a price row for costOf: the record keeps base rates only (no long-context tiers). */
export function rowFromRates(rates: string): PriceRow | null {
  const [input, output, cacheRead, cacheWrite5m, cacheWrite1h] = rates.split(',');
  if (!input || !output) return null;
  return {
    id: 'decision-record',
    provider: '',
    rates: {
      input,
      output,
      cacheRead: cacheRead || null,
      cacheWrite5m: cacheWrite5m || null,
      cacheWrite1h: cacheWrite1h || null,
    },
    longContext: [],
    perRequestFee: null,
    reasoningRate: null,
    contextWindow: null,
    source: 'decision-record',
  };
}

/** One corrected run's saving and its basis (recorded: at its decision's rates; estimated: the old estimate). */
export function savedOf(
  r: Omit<CorrectedRun, 'g' | 'first'>,
  pricer: Pricer | null,
): { saved: bigint; basis: 'recorded' | 'estimated' } | null {
  if (r.cost === null || r.input === null) return null;
  const usage = {
    input: r.input,
    output: r.output ?? 0,
    cacheRead: r.cache_read ?? 0,
    cacheWrite5m: r.cache_write_5m ?? 0,
    cacheWrite1h: r.cache_write_1h ?? 0,
    reasoning: r.reasoning ?? 0,
    requests: Math.max(1, r.requests ?? 1),
  };
  if (r.kind) {
    const row = r.rates ? rowFromRates(r.rates) : null;
    return row ? { saved: costOf(usage, row).picoUsd - BigInt(r.cost), basis: 'recorded' } : null;
  }
  const would = pricer && r.baseline ? pricer.price(r.baseline, r.harness, usage) : null;
  return would ? { saved: would.picoUsd - BigInt(r.cost), basis: 'estimated' } : null;
}

export function priceDecisions(runs: readonly CorrectedRun[], pricer: Pricer | null): DecidedAgg[] {
  const out = new Map<string, DecidedAgg>();
  for (const r of runs) {
    const k = r.g ?? '\u0000null';
    let a = out.get(k);
    if (!a) out.set(k, (a = { g: r.g, corrected: 0, saved: null, savedRuns: 0, budget: null, estimated: 0 }));
    a.corrected += r.first;
    const s = savedOf(r, pricer);
    if (!s) continue;
    if (s.basis === 'estimated') a.estimated = (a.estimated ?? 0) + 1;
    a.saved = (a.saved ?? 0n) + s.saved;
    a.savedRuns++;
    if (r.kind === 'budget-downshift') a.budget = (a.budget ?? 0n) + s.saved;
  }
  return [...out.values()];
}
