/**
 * tiergate's tier agents, `tiergate-<tier>`, as every harness that routes by choosing an agent names them: OpenCode
 * (injected through the plugin's config callback, src/adapters/opencode/tier-agents.ts) and pi (agent files written by
 * the installer, src/adapters/pi/install-agents.ts). Neither harness's task tool takes a model argument, so a correction
 * switches the dispatch to one of these agents.
 */
import type { Tier } from '../contracts/harness.js';
import { TIERS } from '../contracts/harness-ids.js';

export const TIER_AGENT_PREFIX = 'tiergate-';

/** One prompt for tiergate's tier agents everywhere. */
export const TIER_AGENT_PROMPT =
  'You are a general-purpose subagent. Do the task you are given, then reply with a short report.';

export function tierAgentName(tier: Tier): string {
  return `${TIER_AGENT_PREFIX}${tier}`;
}

/** The tier a `tiergate-<tier>` agent name stands for; null for any other name. */
export function tierOfAgent(name: string | null | undefined): Tier | null {
  if (!name || !name.startsWith(TIER_AGENT_PREFIX)) return null;
  const t = name.slice(TIER_AGENT_PREFIX.length);
  return (TIERS as readonly string[]).includes(t) ? (t as Tier) : null;
}
