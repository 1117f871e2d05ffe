/**
 * Two policy settings about children hold only in some harnesses, each named in its descriptor; where one does not
 * hold, doctor says so, so a user does not count on it (docs/budgets.md and each harness's docs page say why):
 * - `budgets.action: "stop"` (runtime/child-stop.ts) stops a running child only where its own tool call or request
 *   passes through a point tiergate has and is known there to be a child's (descriptors' `childStop`);
 * - `limits` (routing-engine/limits.ts) are counted only where the harness tells tiergate, while the parent runs, that
 *   a child ended (descriptors' `childEndEvent`);
 * - `onOverCeiling` / `budgets.action: "ask"` (routing-engine/ask.ts) asks only where the harness has a permission prompt
 *   a hook can raise (descriptors' `askPrompt`).
 * Each line shows only while its setting is in force (mode `on`: `warn` and `off` neither stop nor limit) and names only
 * the harnesses tiergate is installed into; with none installed there is nothing to say.
 */
import { loadPolicy } from '../config/load.js';
import type { Harness, HarnessDescriptor } from '../contracts/harness.js';
import { HARNESS_IDS } from '../contracts/harness-ids.js';
import { DESCRIPTORS } from '../descriptors/index.js';
import type { Env } from '../io/paths.js';
import { hasLimits } from '../routing-engine/limits.js';
import { policyAsks } from '../routing-engine/ask.js';
import { stopsChildren } from '../runtime/child-stop.js';
import type { Check } from './check.js';

export function checkChildren(env: Env, cwd: string, installed: ReadonlySet<Harness>): Check[] {
  const { policy } = loadPolicy(env, cwd);
  const mine = HARNESS_IDS.filter((h) => installed.has(h)).map((h) => DESCRIPTORS[h]);
  if (mine.length === 0) return [];
  return [
    ...(stopsChildren(policy)
      ? [
          coverage(
            mine,
            'stop running children',
            'childStop',
            'budgets.action "stop": running children are stopped at',
            "no hook sees a child's own tool call as a child's there; their children are refused at dispatch only",
          ),
        ]
      : []),
    ...(policy.mode === 'on' && policyAsks(policy)
      ? [
          coverage(
            mine,
            'ask',
            'askPrompt',
            'onOverCeiling / budgets.action "ask": the permission prompt is raised at',
            'no prompt path a hook can raise; the non-ask action applies there (correct, or deny past a budget)',
            'docs/policy.md#ask-instead-of-deny',
          ),
        ]
      : []),
    ...(policy.mode === 'on' && hasLimits(policy.limits)
      ? [
          coverage(
            mine,
            'subagent limits',
            'childEndEvent',
            'limits: children are counted, their end seen at',
            'no event tells tiergate, while the parent runs, that a child ended; their dispatches are not limited',
          ),
        ]
      : []),
  ];
}

/** One check: of `all`, the harnesses whose descriptor states `field` (and what it says), and a warning naming the others. */
function coverage(
  all: HarnessDescriptor[],
  name: string,
  field: 'childStop' | 'childEndEvent' | 'askPrompt',
  where: string,
  whyNot: string,
  doc = 'docs/budgets.md',
): Check {
  const yes = all.filter((d) => d[field] !== undefined);
  const none = all.filter((d) => d[field] === undefined);
  return {
    section: 'budget',
    name,
    status: none.length ? 'warn' : 'ok',
    detail: [
      yes.length ? `${where} ${yes.map((d) => `${d.name}: ${d[field]}`).join('; ')}` : '',
      none.length
        ? `${yes.length ? 'Not in' : 'In none of the installed harnesses:'} ${none.map((d) => d.name).join(', ')}: ${whyNot} (${doc})`
        : '',
    ]
      .filter(Boolean)
      .join('. '),
    data: { covered: yes.map((d) => d.id), none: none.map((d) => d.id) },
  };
}
