/**
 * What tiergate's own decisions saved: a corrected child's usage priced at the model it would have run on without
 * tiergate (the model the dispatch named, else the parent's, which a child that names none inherits), minus what it
 * cost on the model that ran. The "on the parent's model" figure answers another question (the same usage on the
 * parent's model) and shows $0 for an opus -> sonnet correction under an opus parent; this one shows the switch.
 * Priced here, with the catalog in effect now, for the corrected runs only (the ledger keeps no such price).
 */
import type { Harness } from '../contracts/harness.js';
import type { Pricer } from '../observer/pricing.js';

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
};

/** Per group: corrected dispatches (each once), and the saving over the runs priced both ways. */
export type DecidedAgg = { g: string | null; corrected: number; saved: bigint | null; savedRuns: number };

export function priceDecisions(runs: readonly CorrectedRun[], pricer: Pricer | null): DecidedAgg[] {
  const out = new Map<string, DecidedAgg>();
  for (const r of runs) {
    const k = r.g ?? '\u0000null';
    let a = out.get(k);
    if (!a) out.set(k, (a = { g: r.g, corrected: 0, saved: null, savedRuns: 0 }));
    a.corrected += r.first;
    if (!pricer || r.cost === null || r.input === null || !r.baseline) continue;
    const usage = {
      input: r.input,
      output: r.output ?? 0,
      cacheRead: r.cache_read ?? 0,
      cacheWrite5m: r.cache_write_5m ?? 0,
      cacheWrite1h: r.cache_write_1h ?? 0,
      reasoning: r.reasoning ?? 0,
      requests: Math.max(1, r.requests ?? 1),
    };
    const would = pricer.price(r.baseline, r.harness, usage);
    if (!would) continue;
    a.saved = (a.saved ?? 0n) + would.picoUsd - BigInt(r.cost);
    a.savedRuns++;
  }
  return [...out.values()];
}
