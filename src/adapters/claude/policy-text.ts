/**
 * The policy in a few lines for SessionStart's additionalContext (Claude Code shows it to the model as
 * "SessionStart hook additional context: …", reference §5.1). It names legal values only, so a model that follows it
 * never hits a correction or a deny.
 */
import type { Policy } from '../../contracts/config.js';

export function policySummary(policy: Policy): string | null {
  if (policy.mode === 'off') return null;
  const t = policy.tiers.claude;
  const tiers = (['cheap', 'standard', 'premium'] as const)
    .filter((k) => t[k])
    .map((k) => `${k}=${t[k]}`)
    .join(', ');
  return [
    'tiergate: a subagent may not run on a model that costs more than yours.',
    `When you dispatch a subagent, set its model to one no pricier than your own${tiers ? ` (tiers: ${tiers})` : ''}, or leave it out to use the ${policy.defaultTier} tier.`,
    policy.mode === 'warn'
      ? 'This project only logs violations (warn mode).'
      : 'Pricier requests are corrected or denied with a retry hint.',
  ].join(' ');
}
