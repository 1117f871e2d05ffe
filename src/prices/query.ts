/** The rows behind `tiergate prices show|list`: queries only, no formatting (src/cli/commands/prices.ts prints). */
import type { Catalog, PriceRow, Resolution } from '../contracts/prices.js';
import type { Harness } from '../contracts/harness.js';
import type { PriceLookup } from './lookup.js';

export function showPrices(names: string[], harness: Harness, lookup: PriceLookup): Resolution[] {
  return names.map((n) => lookup.resolve(n, harness));
}

export interface ListedRow {
  key: string;
  row: PriceRow;
  catalogVersion: string;
}

/**
 * Every priced key across the layers (the first layer that has a key wins, as in resolution), optionally only the
 * ones whose id or provider contains `family` (`opus`, `gpt-6`, `anthropic`), sorted by provider then id.
 */
export function listPrices(layers: Catalog[], filter: { family?: string; provider?: string } = {}): ListedRow[] {
  const seen = new Map<string, ListedRow>();
  for (const layer of layers) {
    for (const [key, row] of Object.entries(layer.models)) {
      if (!seen.has(key)) seen.set(key, { key, row, catalogVersion: layer.version });
    }
  }
  const family = filter.family?.toLowerCase();
  const provider = filter.provider?.toLowerCase();
  return [...seen.values()]
    .filter((r) => !family || r.key.includes(family) || r.row.provider === family)
    .filter((r) => !provider || r.row.provider === provider)
    .sort((a, b) =>
      a.row.provider < b.row.provider
        ? -1
        : a.row.provider > b.row.provider
          ? 1
          : a.key < b.key
            ? -1
            : a.key > b.key
              ? 1
              : 0,
    );
}
