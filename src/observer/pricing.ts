/**
 * How the observer prices usage: one function, supplied by the caller (the price lookup in effect when the work is
 * drained or scanned). Unpriced is null, never zero: the ledger keeps the tokens and shows the row as unpriced.
 */
import type { Harness } from '../contracts/harness.js';
import type { PriceRow, Resolution } from '../contracts/prices.js';
import type { Usage } from '../contracts/usage.js';

export type Priced = {
  /** Exact cost in pico-USD (1e-12 USD). */
  picoUsd: bigint;
  /** Catalog version that priced it (kept on the ledger row). */
  catalogVersion: string;
  /** Canonical id the price row belongs to. */
  modelId: string;
};

export type Pricer = {
  /** Version stamped on rows this pricer tried and could not price, so they are retried only by a newer catalog. */
  readonly catalogVersion: string;
  price(model: string | null, harness: Harness, usage: Usage): Priced | null;
  /**
   * The catalog id a name resolves to and how (observer/enforcement.ts compares a decided and a served model by it).
   * Absent where no catalog loaded: then nothing is compared, and rows wait for a pass that has one.
   */
  identify?(model: string, harness: Harness): ModelIdentity;
};

export type ModelIdentity = { id: string | null; how: Resolution['how'] };

/** For runs with no catalog at all: everything stays unpriced (and is retried once a catalog exists). */
export const NO_PRICES: Pricer = { catalogVersion: 'none', price: () => null };

/** Exact decimal USD text from pico-USD ("0.018175200000" style trimmed to `digits` places, rounded half up). */
export function picoToUsd(pico: bigint, digits = 6): string {
  const neg = pico < 0n;
  let v = neg ? -pico : pico;
  const scale = 10n ** BigInt(12 - digits);
  v = (v + scale / 2n) / scale;
  const unit = 10n ** BigInt(digits);
  const whole = v / unit;
  const frac = (v % unit).toString().padStart(digits, '0');
  return `${neg ? '-' : ''}${whole}${digits > 0 ? `.${frac}` : ''}`;
}

/** What the observer needs from the price lookup the dispatch path uses (src/routing-engine/decide.ts PriceLookup). */
export type ResolvingLookup = {
  resolve(
    name: string,
    harness: Harness,
  ): { id: string | null; how: Resolution['how']; price: PriceRow | null; catalogVersion: string | null };
  catalogVersion: string;
};

/**
 * A Pricer over a price lookup and a cost function (src/prices/cost.ts costOf). Resolutions are cached per name:
 * a scan prices hundreds of thousands of requests against a handful of models.
 */
export function pricerFromLookup(
  lookup: ResolvingLookup,
  costOf: (usage: Usage, row: PriceRow) => { picoUsd: bigint },
): Pricer {
  const cache = new Map<string, { row: PriceRow; version: string } | null>();
  return {
    catalogVersion: lookup.catalogVersion,
    price(model, harness, usage) {
      if (!model) return null;
      const key = `${harness}\u0000${model}`;
      let hit = cache.get(key);
      if (hit === undefined) {
        const r = lookup.resolve(model, harness);
        hit = r.price ? { row: r.price, version: r.catalogVersion ?? lookup.catalogVersion } : null;
        cache.set(key, hit);
      }
      if (!hit) return null;
      return { picoUsd: costOf(usage, hit.row).picoUsd, catalogVersion: hit.version, modelId: hit.row.id };
    },
    identify(model, harness) {
      const r = lookup.resolve(model, harness);
      return { id: r.id, how: r.how };
    },
  };
}
