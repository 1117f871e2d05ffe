/**
 * The pricer the CLI and hooks use: the same price lookup the dispatch path uses (bundled snapshot, refreshed cache,
 * policy overrides; src/config/runtime.ts) with the exact cost function (src/prices/cost.ts). Falls back to
 * NO_PRICES (everything unpriced, retried by the next catalog) when no catalog loads: a missing catalog is never $0.
 */
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { costOf } from '../prices/cost.js';
import { loadRuntime } from '../config/runtime.js';
import { NO_PRICES, pricerFromLookup, type Pricer } from './pricing.js';

export function loadPricer(env: Env = process.env, cwd: string | null = null): Pricer {
  try {
    return pricerFromLookup(loadRuntime(env, cwd).prices, costOf);
  } catch (err) {
    diagnose('warn', 'observer:prices', `no price catalog: ${errorText(err)}`, {}, env);
    return NO_PRICES;
  }
}
