/**
 * tiergate's tier agents for OpenCode. The task tool has no model argument (1.18.33, seen): the child runs on its
 * agent's model, so routing means choosing an agent. tiergate injects `tiergate-<tier>` agents through the plugin's
 * `config` callback (seen taking effect on 1.18.33) for the tiers the policy maps; users may also define them as files
 * (agents/opencode/*.md), which win over the injected ones. The names and the prompt are shared with pi
 * (src/adapters/tier-agents.ts).
 */
import type { Policy } from '../../contracts/config.js';
import type { Tier } from '../../contracts/harness.js';
import { TIER_AGENT_PROMPT, tierAgentName } from '../tier-agents.js';

const DESCRIPTIONS: Record<Tier, string> = {
  cheap: 'General-purpose subagent on the cheap tier: quick lookups, mechanical edits, summaries.',
  standard: 'General-purpose subagent on the standard tier: everyday coding tasks.',
  premium: 'General-purpose subagent on the premium tier: hard reasoning (never pricier than you).',
  parent: 'General-purpose subagent on your own model.',
};

type AgentConfig = { mode?: string; description?: string; model?: string; prompt?: string; [k: string]: unknown };

/**
 * Adds the tier agents to OpenCode's live config object in place. A tier gets an agent when the policy maps it to a
 * model; `tiergate-parent` (no model: OpenCode runs it on the parent's model) is added whenever any tier is mapped.
 * Existing agents of the same name are left alone. Returns the names added.
 */
export function injectTierAgents(cfg: { agent?: Record<string, AgentConfig | undefined> }, policy: Policy): string[] {
  const map = policy.tiers.opencode;
  const mapped = (['cheap', 'standard', 'premium'] as const).filter((t) => typeof map[t] === 'string' && map[t]);
  if (mapped.length === 0 && !map.parent) return [];
  cfg.agent ??= {};
  const added: string[] = [];
  const want: Array<[Tier, string | undefined]> = [
    ...mapped.map((t) => [t, map[t]] as [Tier, string]),
    ['parent', map.parent],
  ];
  for (const [tier, model] of want) {
    const name = tierAgentName(tier);
    if (cfg.agent[name]) continue;
    const agent: AgentConfig = { mode: 'subagent', description: DESCRIPTIONS[tier], prompt: TIER_AGENT_PROMPT };
    if (model) agent.model = model;
    cfg.agent[name] = agent;
    added.push(name);
  }
  return added;
}
