/**
 * The background push at session end: when a team ledger is configured, starts `node dist/cli.js push --background`
 * detached and returns at once, through the one background trigger the price refresh uses too (refresh/background.ts:
 * the lock handed to the child by nonce, so many sessions ending together start one push). The child is bounded (a watchdog in the push
 * command); a failed push leaves its error in the push status and is retried by the next session end.
 * Never throws, never touches the network itself: SessionEnd hooks call this.
 */
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { startBackground } from '../refresh/background.js';
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
    // The child reads the URL and label from the same policy and environment; nothing secret goes on its command line.
    return startBackground(env, {
      where: 'team.push.trigger',
      what: 'push',
      script: 'cli.js',
      ...(opts.script === undefined ? {} : { scriptPath: opts.script }),
      args: ['push', '--background'],
      lockPath: teamPaths(env).lock,
      lockEnv: PUSH_LOCK_ENV,
      now: (opts.now ?? Date.now)(),
    });
  } catch (err) {
    diagnose('error', 'team.push.trigger', errorText(err), {}, env);
    return { started: false, reason: 'error', detail: errorText(err) };
  }
}
