/** Which sources the background refresh fetches, how often, and whether it runs at all. */
import { PolicySchema, type Policy } from '../contracts/config.js';
import type { Env } from '../io/paths.js';

export type RefreshConfig = Policy['refresh'];
export type RefreshSource = RefreshConfig['sources'][number];

/** Source names become file names: keep them short and inert. */
export const SOURCE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export type SwitchState = { on: true } | { on: false; why: string };

/** The two switch-offs: the environment wins over the config file. */
export function refreshSwitch(env: Env, config: RefreshConfig): SwitchState {
  const v = (env.TIERGATE_PRICE_REFRESH ?? '').trim().toLowerCase();
  if (v === 'off' || v === '0' || v === 'false')
    return { on: false, why: `TIERGATE_PRICE_REFRESH=${env.TIERGATE_PRICE_REFRESH}` };
  if (!config.enabled) return { on: false, why: 'refresh.enabled is false in the config' };
  return { on: true };
}

/** Env keys the launcher (trigger) sets for the detached refresh: the lock nonce it hands over, and "ignore TTL". */
export const LOCK_ENV = 'TIERGATE_REFRESH_LOCK';
export const FORCE_ENV = 'TIERGATE_REFRESH_FORCE';
/** The refresh config the launcher resolved (JSON), so the detached process fetches exactly what the trigger judged due. */
export const CONFIG_ENV = 'TIERGATE_REFRESH_CONFIG';

/** The handed-over config, or null when absent or invalid (the process then loads the config itself). */
export function configFromEnv(env: Env): RefreshConfig | null {
  const raw = env[CONFIG_ENV];
  if (!raw) return null;
  try {
    const r = PolicySchema.shape.refresh.safeParse(JSON.parse(raw));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}
