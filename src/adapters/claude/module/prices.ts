/**
 * The module's price lookup: the bundled snapshot (data/prices-snapshot.json, compiled into dist/claude-module.js) and
 * the user's priceOverrides. The module cannot run the Node-side refresh, and reading the refreshed cache through `$.fs`
 * on a dispatch would cost time; the command path and the ledger use the refreshed layers.
 */
import type { Catalog, PriceRow } from '../../../contracts/prices.js';
import type { Policy } from '../../../contracts/config.js';
import { createPriceLookup, type PriceLookup } from '../../../prices/lookup.js';
import snapshot from '../../../../data/prices-snapshot.json';

const bundled = snapshot as unknown as Catalog;

/** policy.priceOverrides as the best layer (same shape the Node side builds: USD per 1M tokens). */
export function overrideLayer(policy: Policy): Catalog | null {
  const entries = Object.entries(policy.priceOverrides);
  if (entries.length === 0) return null;
  const models: Record<string, PriceRow> = {};
  for (const [id, r] of entries) {
    models[id.toLowerCase()] = {
      id: id.toLowerCase(), provider: 'override',
      rates: { input: r.input, output: r.output, cacheRead: r.cacheRead ?? null, cacheWrite5m: r.cacheWrite5m ?? null, cacheWrite1h: r.cacheWrite1h ?? null },
      longContext: [], perRequestFee: null, reasoningRate: null, contextWindow: null, source: 'override',
    };
  }
  return { format: 'tiergate-catalog/1', version: 'override', date: bundled.date, source: 'config priceOverrides', models, aliases: {} };
}

let memo: { policy: Policy; lookup: PriceLookup } | null = null;

export function bundledLookup(policy: Policy): PriceLookup {
  if (memo && memo.policy === policy) return memo.lookup;
  const override = overrideLayer(policy);
  const lookup = createPriceLookup(override ? [override, bundled] : [bundled], { claudeProvider: policy.claudeProvider });
  memo = { policy, lookup };
  return lookup;
}
