/** Policy price overrides as a catalog layer. Pure: shared by the Node loader (load.ts) and the Claude hooks module. */
import type { Catalog, PriceRow } from '../contracts/prices.js';
import type { Policy } from '../contracts/config.js';
import { makerOf } from './makers.js';
import { canonicalId } from './normalise.js';

/** Policy price overrides as a catalog (version `override`), keyed by the name as written and its canonical id. */
export function overridesCatalog(overrides: Policy['priceOverrides']): Catalog | null {
  const entries = Object.entries(overrides ?? {});
  if (entries.length === 0) return null;
  const models: Record<string, PriceRow> = {};
  for (const [name, r] of entries) {
    const id = canonicalId(name);
    const row: PriceRow = {
      id,
      provider: makerOf(id) ?? 'override',
      rates: {
        input: r.input,
        output: r.output,
        cacheRead: r.cacheRead ?? null,
        cacheWrite5m: r.cacheWrite5m ?? null,
        cacheWrite1h: r.cacheWrite1h ?? null,
      },
      // A negotiated rate is flat unless the user says otherwise: no catalog tier is carried over.
      longContext: [],
      perRequestFee: null,
      reasoningRate: null,
      contextWindow: null,
      source: 'override',
    };
    models[id] = row;
    const lower = name.trim().toLowerCase();
    if (lower !== id) models[lower] = { ...row, id: lower };
  }
  return {
    format: 'tiergate-catalog/1',
    version: 'override',
    date: '',
    source: 'policy priceOverrides',
    models,
    aliases: {},
  };
}
