/**
 * The module's price lookup: the bundled snapshot (data/prices-snapshot.json, compiled into dist/claude-module.js) and
 * the user's priceOverrides. The module cannot run the Node-side refresh, and reading the refreshed cache through `$.fs`
 * on a dispatch would cost time; the command path and the ledger use the refreshed layers.
 */
import type { Catalog } from '../../../contracts/prices.js';
import { overridesCatalog } from '../../../prices/overrides.js';
import type { Policy } from '../../../contracts/config.js';
import { createPriceLookup, type PriceLookup } from '../../../prices/lookup.js';
import snapshot from '../../../../data/prices-snapshot.json';

const bundled = snapshot as unknown as Catalog;

let memo: { policy: Policy; lookup: PriceLookup } | null = null;

export function bundledLookup(policy: Policy): PriceLookup {
  if (memo && memo.policy === policy) return memo.lookup;
  const override = overridesCatalog(policy.priceOverrides);
  const lookup = createPriceLookup(override ? [override, bundled] : [bundled], policy);
  memo = { policy, lookup };
  return lookup;
}
