/**
 * `budgets.action: "stop"` (runtime/child-stop.ts) holds only where a running child's own tool call or request passes
 * through a point tiergate has and is known there to be a child's. Where it does not, doctor says so, so a user does
 * not count on a stop that cannot happen (each harness's docs page says why).
 */
import { loadPolicy } from '../config/load.js';
import { HARNESS_IDS, type Harness } from '../contracts/harness-ids.js';
import type { Env } from '../io/paths.js';
import { stopsChildren } from '../runtime/child-stop.js';
import type { Check } from './check.js';

/** Where a running child is stopped, and how. A harness missing here has no such point (docs/budgets.md). */
const STOPS: Partial<Record<Harness, string>> = {
  claude: "the child's next tool call (PreToolUse with agent_id)",
  codex: "the child's next tool call (PreToolUse of a child thread, armed by SessionStart)",
  opencode: "the child's next model request or tool call (plugin, in process)",
  pi: "the child's next tool call (extension in the child pi process, installed globally)",
};

export function checkChildStop(env: Env, cwd: string): Check[] {
  const { policy } = loadPolicy(env, cwd);
  if (!stopsChildren(policy)) return [];
  const none = HARNESS_IDS.filter((h) => STOPS[h] === undefined);
  return [
    {
      section: 'budget',
      name: 'stop running children',
      status: none.length ? 'warn' : 'ok',
      detail:
        `budgets.action "stop": running children are stopped at ${Object.entries(STOPS)
          .map(([h, how]) => `${h}: ${how}`)
          .join('; ')}` +
        (none.length
          ? `. Not in ${none.join(', ')}: no hook sees a child's own tool call as a child's there; their children are refused at dispatch only (docs/budgets.md)`
          : ''),
      data: { stops: Object.keys(STOPS), none },
    },
  ];
}
