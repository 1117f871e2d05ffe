/**
 * The price lookup the engine, the ledger and the CLI share. Layers are best first (overrides, refreshed caches,
 * bundled snapshot); the first that knows a model prices it, and the Resolution names that layer's version.
 */
import type { Catalog, Resolution } from '../contracts/prices.js';
import type { Harness } from '../contracts/harness.js';
import { Resolver, type AliasRegistry, type ResolveOptions } from './resolve.js';
import type { PriceLookup } from '../contracts/prices.js';

/** The engine defines the lookup it consumes; this module implements it. */
export type { PriceLookup };

export type LookupOptions = ResolveOptions;

/** How a (harness, name) lookup is memoised per process. */
const resolutionKey = (harness: Harness, name: string): string => `${harness}\u0000${name}`;

/** Long-lived hosts (OpenCode, pi) resolve many names; the memo stays bounded. */
const MEMO_LIMIT = 2000;

/** `harnesses`: whose alias tables apply to which harness; the registry's descriptors unless a test passes its own. */
export function createPriceLookup(layers: Catalog[], opts: LookupOptions, harnesses?: AliasRegistry): PriceLookup {
  const resolver = new Resolver(layers, opts, harnesses);
  const memo = new Map<string, Resolution>();
  const dated = layers
    .filter((l) => l.version !== 'override')
    .map((l) => l.date)
    .sort();
  return {
    resolve(name: string, harness: Harness): Resolution {
      const key = resolutionKey(harness, name);
      const hit = memo.get(key);
      if (hit) return hit;
      const r = resolver.resolve(name, harness);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(key, r);
      return r;
    },
    catalogDate: dated.at(-1) ?? '',
    catalogVersion: layers.map((l) => l.version).join('+'),
  };
}
