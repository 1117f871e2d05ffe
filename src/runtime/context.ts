/** Policy and prices for this process, loaded once: hooks are short-lived, in-process plugins reuse them. */
import type { Policy } from '../contracts/config.js';
import { loadPolicy } from '../config/load.js';
import type { Env } from '../io/paths.js';
import { loadCatalogLayers } from '../prices/load.js';
import { createPriceLookup, type PriceLookup } from '../prices/lookup.js';
import { rememberDeclared } from '../prices/declared.js';
import type { Harness } from '../contracts/harness.js';

export type Runtime = { policy: Policy; policyDiagnostics: string[]; prices: PriceLookup };

/** In-process hosts (OpenCode, pi) pick up policy edits within this long. */
const TTL_MS = 30_000;
const cache = new Map<string, { at: number; rt: Runtime }>();

export function loadRuntime(env: Env, cwd: string | null): Runtime {
  const key = cwd ?? '';
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.rt;
  const { policy, diagnostics } = loadPolicy(env, cwd);
  const prices = createPriceLookup(loadCatalogLayers(env, policy), { claudeProvider: policy.claudeProvider });
  const rt = { policy, policyDiagnostics: diagnostics, prices };
  cache.set(key, { at: Date.now(), rt });
  return rt;
}

/**
 * Prices a harness declared for its models (OpenCode model.cost, pi ctx.model.cost): kept as the lowest price
 * layer (prices/declared.ts); a new one drops the cached lookups so the next dispatch prices with it.
 */
export function declareModelPrices(env: Env, harness: Harness, declared: readonly { model: string | null; cost: unknown }[]): void {
  if (rememberDeclared(env, harness, declared)) cache.clear();
}

export function clearRuntimeCache(): void {
  cache.clear();
}
