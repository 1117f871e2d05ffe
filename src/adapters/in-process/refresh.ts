/**
 * The background price refresh for in-process hosts (OpenCode's plugin, pi's extension). They have no SessionStart
 * hook process, so they start it when they load: once per process and data dir (a host may load the plugin again, per
 * project or on reload), never on a dispatch path, never awaited. triggerRefresh returns at once (TTL, lock, a
 * detached process) and never throws; the guard here only keeps a surprise from reaching the host.
 */
import { diagnose, errorText } from '../../io/diagnostics.js';
import { paths, type Env } from '../../io/paths.js';
import { triggerRefresh, type TriggerResult } from '../../refresh/trigger.js';

const started = new Set<string>();

export type Trigger = (env: Env) => TriggerResult;

/** The trigger's result the first time for this data dir; null when already done in this process (or it failed). */
export function refreshOnce(env: Env, where: string, trigger: Trigger = triggerRefresh): TriggerResult | null {
  try {
    const key = paths(env).data;
    if (started.has(key)) return null;
    started.add(key);
    return trigger(env);
  } catch (err) {
    diagnose('error', where, `price refresh: ${errorText(err)}`, {}, env);
    return null;
  }
}
