/**
 * pi: tiergate's tier agents as agent files, `<agentDir>/agents/tiergate-<tier>.md`, where pi 0.73.1's example
 * `subagent` tool finds user agents (frontmatter `name`, `description`, `model`; source, and seen running the child
 * with `--model <model>`). pi's tool has no model argument, so a correction needs an agent to switch to: without
 * these files tiergate can only deny.
 *
 * Only tiers that tiers.pi maps to a model get a file. An agent without `model:` does not inherit the parent's model
 * in pi: the child runs on pi's default model from settings.json (seen: parent started with `--model fake/small`,
 * a model-less agent's child asked for `parent`, the settings default). So `tiergate-parent` is written only when
 * tiers.pi.parent names a model.
 */
import { join } from 'node:path';
import type { Policy } from '../../contracts/config.js';
import type { Tier } from '../../contracts/harness.js';
import { loadPolicy } from '../../config/load.js';
import { TIER_AGENT_PROMPT, tierAgentName } from '../tier-agents.js';
import { parseAgentFile } from './agents.js';
import { readText } from '../../install/backup.js';
import { type FileEditStep, type HarnessPlan, type InstallContext, wholeFileEdit } from '../../install/plan.js';
import { frontmatterBlock } from '../../io/frontmatter.js';

/** The frontmatter line that marks a file as tiergate's (pi ignores keys it does not know). */
export const MARKER = 'generatedBy: tiergate';

const TIERS: Tier[] = ['cheap', 'standard', 'premium', 'parent'];

// No ": " inside: the frontmatter is YAML to pi, and the values are also written JSON-quoted.
const DESCRIPTIONS: Record<Tier, string> = {
  cheap: 'General-purpose subagent on the cheap tier (quick lookups, mechanical edits, summaries)',
  standard: 'General-purpose subagent on the standard tier (everyday coding tasks)',
  premium: 'General-purpose subagent on the premium tier (hard reasoning, never pricier than you)',
  parent: 'General-purpose subagent on the same model as you',
};

/** `PI_CODING_AGENT_DIR`, else `~/.pi/agent` (pi.md §1). */
export function agentDir(ctx: InstallContext): string {
  return ctx.env.PI_CODING_AGENT_DIR || join(ctx.home, '.pi', 'agent');
}

export function agentsDir(ctx: InstallContext): string {
  return join(agentDir(ctx), 'agents');
}

export function agentFile(ctx: InstallContext, tier: Tier): string {
  return join(agentsDir(ctx), `${tierAgentName(tier)}.md`);
}

export function agentText(tier: Tier, model: string): string {
  return [
    '---',
    `name: ${tierAgentName(tier)}`,
    `description: ${JSON.stringify(DESCRIPTIONS[tier])}`,
    `model: ${JSON.stringify(model)}`,
    MARKER,
    '---',
    TIER_AGENT_PROMPT,
    '',
  ].join('\n');
}

export function isOurs(text: string): boolean {
  const front = frontmatterBlock(text);
  return front !== null && front.split(/\r?\n/).some((l) => l.trim() === MARKER);
}

/** The files tiergate wants, from the user's validated policy (not a project's: these are user-scope agents). */
export function wantedAgents(
  ctx: InstallContext,
  policy: Policy = loadPolicy(ctx.env, null).policy,
): { tier: Tier; file: string; text: string }[] {
  const map = policy.tiers.pi;
  return TIERS.flatMap((tier) => {
    const model = map[tier];
    return typeof model === 'string' && model
      ? [{ tier, file: agentFile(ctx, tier), text: agentText(tier, model) }]
      : [];
  });
}

export function planAgentsInstall(plan: HarnessPlan, ctx: InstallContext): void {
  const { policy, diagnostics } = loadPolicy(ctx.env, null);
  for (const d of diagnostics) plan.notes.push(`tiergate config: ${d}`);
  const wanted = wantedAgents(ctx, policy);
  if (wanted.length === 0) {
    plan.notes.push(
      'tiers.pi maps no tier to a model, so no tier agents are written and an over-ceiling subagent call is denied, not corrected. ' +
        'Set e.g. "tiers": {"pi": {"cheap": "anthropic/claude-haiku-4-5"}} in tiergate\'s config and install again.',
    );
    return;
  }
  if (!policy.tiers.pi.parent)
    plan.notes.push(
      "tiergate-parent is not written: a pi agent without `model:` runs on pi's default model, not yours (set tiers.pi.parent to add it).",
    );
  for (const w of wanted) {
    const current = readText(w.file);
    if (current === w.text) continue;
    if (current !== null && !isOurs(current)) {
      plan.notes.push(
        `${w.file} exists and is not tiergate's: left as it is (tiergate routes to it as the ${w.tier} tier when its model is within the ceiling).`,
      );
      continue;
    }
    plan.steps.push(
      wholeFileEdit(
        w.file,
        `${current === null ? 'write' : 'update'} ${w.file} (model ${policy.tiers.pi[w.tier]})`,
        current,
        w.text,
      ),
    );
  }
}

/**
 * Uninstall without an install record: delete a tier agent file only when it is exactly what tiergate would write
 * now; a marked file that differs was changed by someone, so it stays.
 */
export function planAgentsUninstall(plan: HarnessPlan, ctx: InstallContext): void {
  const wanted = new Map(wantedAgents(ctx).map((w) => [w.file, w.text]));
  for (const tier of TIERS) {
    const file = agentFile(ctx, tier);
    const current = readText(file);
    if (current === null || !isOurs(current)) continue;
    if (current === wanted.get(file)) plan.steps.push(wholeFileEdit(file, `delete ${file}`, current, null));
    else
      plan.notes.push(
        `${file} changed since tiergate wrote it: left as it is (delete it yourself if you do not want it).`,
      );
  }
}

export type AgentState = {
  file: string;
  tier: Tier;
  state: 'ours' | 'ours-changed' | 'foreign' | 'missing';
  model: string | null;
};

/** What doctor shows: each tier agent file and whose it is. */
export function agentsStatus(ctx: InstallContext): AgentState[] {
  const wanted = new Map(wantedAgents(ctx).map((w) => [w.file, w.text]));
  return TIERS.flatMap((tier): AgentState[] => {
    const file = agentFile(ctx, tier);
    const text = readText(file);
    if (text === null) return wanted.has(file) ? [{ file, tier, state: 'missing', model: null }] : [];
    const state = !isOurs(text) ? 'foreign' : text === wanted.get(file) ? 'ours' : 'ours-changed';
    return [{ file, tier, state, model: parseAgentFile(text)?.model ?? null }];
  });
}
