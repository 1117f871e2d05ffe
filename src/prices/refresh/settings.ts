/** Which sources the background refresh fetches, how often, and whether it runs at all. */
import type { Policy } from '../../contracts/config.js';
import type { Env } from '../../io/paths.js';

export type RefreshConfig = Policy['refresh'];
export type RefreshSource = RefreshConfig['sources'][number];

/**
 * OpenRouter first (live router prices, no auth, one page), LiteLLM's price JSON second (first-party list prices for
 * Claude/OpenAI/Azure/Bedrock). models.dev is opt-in: ≈2.4 MB, and its licence was not confirmed (pricing.md §2.3).
 */
export const DEFAULT_REFRESH_SOURCES: RefreshSource[] = [
  { name: 'openrouter', url: 'https://openrouter.ai/api/v1/models', format: 'openrouter' },
  {
    name: 'litellm',
    url: 'https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json',
    format: 'litellm',
  },
];

/** models.dev, for users who add it to `refresh.sources`. */
export const MODELS_DEV_SOURCE: RefreshSource = { name: 'models.dev', url: 'https://models.dev/api.json', format: 'models.dev' };

export const DEFAULT_REFRESH: RefreshConfig = { enabled: true, ttlHours: 24, sources: DEFAULT_REFRESH_SOURCES };

/** Source names become file names: keep them short and inert. */
export const SOURCE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export type SwitchState = { on: true } | { on: false; why: string };

/** The two switch-offs: the environment wins over the config file. */
export function refreshSwitch(env: Env, config: RefreshConfig): SwitchState {
  const v = (env.TIERGATE_PRICE_REFRESH ?? '').trim().toLowerCase();
  if (v === 'off' || v === '0' || v === 'false') return { on: false, why: `TIERGATE_PRICE_REFRESH=${env.TIERGATE_PRICE_REFRESH}` };
  if (!config.enabled) return { on: false, why: 'refresh.enabled is false in the config' };
  return { on: true };
}

/** Env keys the launcher (trigger) sets for the detached refresh: the lock nonce it hands over, and "ignore TTL". */
export const LOCK_ENV = 'TIERGATE_REFRESH_LOCK';
export const FORCE_ENV = 'TIERGATE_REFRESH_FORCE';
