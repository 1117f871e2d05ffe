/**
 * Starts a background refresh and returns at once: SessionStart hooks call this, and their wall time must not depend
 * on the network. Cheap checks first (switch-offs, TTL via the status file), then the one background trigger
 * (background.ts: lock, detached `node dist/refresh.js`). Never throws: a failure is one diagnostic line.
 */
import { diagnose, errorText } from '../io/diagnostics.js';
import { paths, type Env } from '../io/paths.js';
import { startBackground } from './background.js';
import { loadRefreshConfig } from './config.js';
import { dueSources } from './due.js';
import { CONFIG_ENV, FORCE_ENV, LOCK_ENV, refreshSwitch, type RefreshConfig } from './settings.js';

export type TriggerResult =
  | { started: true; pid: number; sources: string[] }
  | { started: false; reason: 'off' | 'fresh' | 'running' | 'spawn-failed' | 'error'; detail: string };

export type TriggerOptions = {
  /** Ignore TTL and back-off (`tiergate prices refresh`). */
  force?: boolean;
  /** The refresh entry to run; defaults to refresh.js next to the running bundle (dist/). */
  script?: string;
  config?: RefreshConfig;
  now?: () => number;
};

export function triggerRefresh(env: Env = process.env, opts: TriggerOptions = {}): TriggerResult {
  try {
    const config = opts.config ?? loadConfig(env);
    const sw = refreshSwitch(env, config);
    if (!sw.on) return { started: false, reason: 'off', detail: sw.why };
    const nowMs = (opts.now ?? Date.now)();
    const due = opts.force ? config.sources : dueSources(env, config, nowMs);
    if (due.length === 0)
      return { started: false, reason: 'fresh', detail: 'every source is within its TTL or back-off' };
    const r = startBackground(env, {
      where: 'prices.refresh.trigger',
      what: 'refresh',
      script: 'refresh.js',
      ...(opts.script === undefined ? {} : { scriptPath: opts.script }),
      lockPath: paths(env).refreshLock,
      lockEnv: LOCK_ENV,
      childEnv: { [FORCE_ENV]: opts.force ? '1' : '0', [CONFIG_ENV]: JSON.stringify(config) },
      now: nowMs,
    });
    return r.started ? { ...r, sources: due.map((s) => s.name) } : r;
  } catch (err) {
    diagnose('error', 'prices.refresh.trigger', errorText(err), {}, env);
    return { started: false, reason: 'error', detail: errorText(err) };
  }
}

function loadConfig(env: Env): RefreshConfig {
  const { config, diagnostics } = loadRefreshConfig(env);
  for (const d of diagnostics) diagnose('warn', 'prices.refresh.config', d, {}, env);
  return config;
}
