/**
 * Grok Build 1.0.41 runs the hooks of `~/.claude/settings.json` (and of Claude Code plugins it discovers) beside its
 * own, with its own payload: one spawn_subagent would reach tiergate's Grok hook and a Claude hook, two decisions and
 * two records for one dispatch. A Claude hook that Grok started stands aside: Grok sets GROK_HOOK_EVENT for every hook
 * it runs, and its envelope carries the camelCase `hookEventName` Claude Code never sends (both seen on 1.0.41).
 */
import type { Env } from '../../contracts/env.js';
import type { HookHandler } from '../../contracts/hook.js';
import { isRecord } from '../../contracts/record.js';

export function firedByGrok(payload: unknown, env: Env): boolean {
  if (env.GROK_HOOK_EVENT) return true;
  return isRecord(payload) && typeof payload.hookEventName === 'string';
}

/** The handler, except in a hook Grok started: no output, nothing recorded (tiergate's Grok hook has the event). */
export const standAsideForGrok =
  (handler: HookHandler): HookHandler =>
  (payload, ctx) =>
    firedByGrok(payload, ctx.env) ? null : handler(payload, ctx);
