/**
 * The background push at session end: when a team ledger is configured, starts `node dist/cli.js push --background`
 * detached and returns at once (like the price refresh, refresh/trigger.ts). The lock is taken here and handed
 * to the child by nonce, so many sessions ending together start one push. The child is bounded (a watchdog in the push
 * command); a failed push leaves its error in the push status and is retried by the next session end.
 * Never throws, never touches the network itself: SessionEnd hooks call this.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { spawnDetached } from '../io/processes.js';
import { acquireLock, releaseLock } from '../refresh/lock.js';
import { nodeBinary } from '../refresh/trigger.js';
import { teamPaths, teamUrl } from './config.js';

/** The environment variable carrying the lock's nonce to the detached push. */
export const PUSH_LOCK_ENV = 'TIERGATE_PUSH_LOCK';

export type PushTriggerResult =
  | { started: true; pid: number }
  | { started: false; reason: 'off' | 'running' | 'spawn-failed' | 'error'; detail: string };

export function triggerPush(
  env: Env = process.env,
  opts: { script?: string; now?: () => number } = {},
): PushTriggerResult {
  try {
    if (!teamUrl(env).url)
      return { started: false, reason: 'off', detail: 'no team.url in the user policy and no TIERGATE_TEAM_URL' };
    const script = opts.script ?? cliScript();
    if (!script || !existsSync(script)) {
      diagnose('error', 'team.push.trigger', 'cli.js not found next to the bundle', {}, env);
      return { started: false, reason: 'spawn-failed', detail: 'cli.js not found' };
    }
    const lock = teamPaths(env).lock;
    const nonce = acquireLock(lock, process.pid, (opts.now ?? Date.now)());
    if (!nonce) return { started: false, reason: 'running', detail: 'another push holds the lock' };
    // The child reads the URL and label from the same policy and environment; nothing secret goes on its command line.
    const pid = spawnDetached(nodeBinary(), [script, 'push', '--background'], {
      ...env,
      [PUSH_LOCK_ENV]: nonce,
    } as NodeJS.ProcessEnv);
    if (pid === null) {
      releaseLock(lock, nonce);
      diagnose('error', 'team.push.trigger', 'could not start the push process', {}, env);
      return { started: false, reason: 'spawn-failed', detail: 'spawn returned no pid' };
    }
    return { started: true, pid };
  } catch (err) {
    diagnose('error', 'team.push.trigger', errorText(err), {}, env);
    return { started: false, reason: 'error', detail: errorText(err) };
  }
}

/** Bundled, this module lives in dist/<bundle> beside dist/cli.js; from source (tests), look in dist/. */
export function cliScript(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'cli.js'), join(here, '..', '..', 'dist', 'cli.js')];
  return candidates.find((p) => existsSync(p)) ?? null;
}
