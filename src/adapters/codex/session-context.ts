/**
 * The policy in a few lines for Codex's SessionStart `additionalContext` (added as a developer message to the first
 * request, seen on 0.169.0), so the model names a legal spawn model up front instead of learning it from a deny.
 */
import type { Policy } from '../../contracts/config.js';

export function codexSessionContext(policy: Policy, parentModel: string | null): string | null {
  if (policy.mode === 'off') return null;
  const t = policy.tiers.codex;
  const tiers = (['cheap', 'standard', 'premium'] as const)
    .filter((k) => t[k])
    .map((k) => `${k}=${t[k]}`)
    .join(', ');
  const you = parentModel ? `your own model (${parentModel})` : 'your own model';
  const enforcement =
    policy.mode === 'warn'
      ? 'Over-ceiling spawns are logged.'
      : policy.codexRewrite === true
        ? 'Over-ceiling spawns are corrected to a model within the ceiling.'
        : 'Over-ceiling spawns are denied with the model to retry with.';
  return `tiergate: a subagent may not cost more than its parent. When spawn_agent sets model, pick one priced no higher than ${you}; omit model to run the child on yours.${tiers ? ` Tiers: ${tiers}.` : ''} ${enforcement}`;
}
