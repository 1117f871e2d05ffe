/** The refresh section of the user's policy. */
import { loadPolicy } from '../config/load.js';
import type { Env } from '../io/paths.js';
import type { RefreshConfig } from './settings.js';

/**
 * User config only, never the project's `.tiergate.json`: refreshed catalogs are shared by every project, so a cloned
 * repository must not be able to point the refresh at a price feed of its choosing.
 */
export function loadRefreshConfig(env: Env): { config: RefreshConfig; diagnostics: string[] } {
  const { policy, diagnostics } = loadPolicy(env, null);
  return { config: policy.refresh, diagnostics };
}
