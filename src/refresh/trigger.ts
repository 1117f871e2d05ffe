/**
 * Starts a background refresh and returns at once: SessionStart hooks call this, and their wall time must not depend
 * on the network. Cheap checks first (switch-offs, TTL via the status file, the lock), then the lock is taken here and
 * handed to a detached `node dist/refresh.js` by nonce, so ten concurrent session starts spawn one process, not ten.
 * Never throws: a failure is one diagnostic line.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagnose, errorText } from '../io/diagnostics.js';
import { paths, type Env } from '../io/paths.js';
import { spawnDetached } from '../io/processes.js';
import { loadRefreshConfig } from './config.js';
import { acquireLock, releaseLock } from './lock.js';
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
    const script = opts.script ?? refreshScript();
    if (!script || !existsSync(script)) {
      diagnose('error', 'prices.refresh.trigger', 'refresh.js not found next to the bundle', {}, env);
      return { started: false, reason: 'spawn-failed', detail: 'refresh.js not found' };
    }
    const lockPath = paths(env).refreshLock;
    const nonce = acquireLock(lockPath, process.pid, nowMs);
    if (!nonce) return { started: false, reason: 'running', detail: 'another refresh holds the lock' };
    const childEnv = {
      ...env,
      [LOCK_ENV]: nonce,
      [FORCE_ENV]: opts.force ? '1' : '0',
      [CONFIG_ENV]: JSON.stringify(config),
    } as NodeJS.ProcessEnv;
    const pid = spawnDetached(nodeBinary(), [script], childEnv);
    if (pid === null) {
      releaseLock(lockPath, nonce);
      diagnose('error', 'prices.refresh.trigger', 'could not start the refresh process', { script }, env);
      return { started: false, reason: 'spawn-failed', detail: 'spawn returned no pid' };
    }
    return { started: true, pid, sources: due.map((s) => s.name) };
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

/** Bundled, this module lives in dist/<entry>.js beside dist/refresh.js; from source (tests), look in dist/. */
export function refreshScript(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'refresh.js'), join(here, '..', '..', 'dist', 'refresh.js')];
  return candidates.find((p) => existsSync(p)) ?? null;
}

/**
 * The node to run refresh.js with: this one when we run in Node (command hooks, pi); `node` from PATH inside Bun or a
 * compiled host binary (OpenCode loads plugins in Bun, whose execPath is not a Node that runs our bundle).
 */
export function nodeBinary(
  execPath = process.execPath,
  versions: Record<string, string | undefined> = process.versions,
): string {
  const isNode = versions.bun === undefined && /(^|[\\/])node(\.exe)?$/i.test(execPath);
  return isNode ? execPath : 'node';
}
