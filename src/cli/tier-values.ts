/**
 * `config check`: are the tier values ones the harness will take? A typo (`tiers.claude.standard: "sonet"`) parses as a
 * string, so nothing else notices until routing quietly changes. Claude Code's Agent tool takes only its aliases
 * (2.1.328, seen), so a Claude value must be one of them or a full id the price catalog knows: anything else is an
 * error with the nearest alias. Other model-routed harnesses take any model their provider serves, so an id the
 * catalog does not know is a warning (its price is unknown); agent-routed harnesses map tiers to agents or to models
 * of their own providers, which tiergate cannot list, so they are not checked here.
 */
import { capabilityFor } from '../adapters/capabilities.js';
import { HARNESS_IDS, type Harness } from '../contracts/harness.js';
import type { Policy } from '../contracts/config.js';
import type { PriceLookup } from '../contracts/prices.js';
import { closest } from './suggest.js';

export type TierProblem = {
  harness: Harness;
  tier: string;
  value: string;
  level: 'error' | 'warning';
  message: string;
};

const KNOWN = new Set(['exact', 'normalised', 'alias']);

export function checkTierValues(policy: Policy, prices: PriceLookup, catalogIds: readonly string[]): TierProblem[] {
  const out: TierProblem[] = [];
  for (const harness of HARNESS_IDS) {
    const cap = capabilityFor(harness, policy);
    if (cap.rewriteKind === 'agent') continue;
    for (const [tier, value] of Object.entries(policy.tiers[harness] ?? {})) {
      if (typeof value !== 'string') continue;
      const known = KNOWN.has(prices.resolve(value, harness).how);
      const at = `tiers.${harness}.${tier}: '${value}'`;
      if (cap.legalValues) {
        if (cap.legalValues.includes(value) || known) continue;
        const near = closest(value, [...cap.legalValues, ...catalogIds]);
        out.push({
          harness,
          tier,
          value,
          level: 'error',
          message: `${at} is not a model ${harness} takes (${cap.legalValues.join(', ')}, or a full model id the price catalog knows)${near ? `: did you mean '${near}'?` : ''}`,
        });
      } else if (!known) {
        const near = closest(value, catalogIds);
        out.push({
          harness,
          tier,
          value,
          level: 'warning',
          message: `${at} is not a model the price catalog knows, so its price is unknown${near ? ` (did you mean '${near}'?)` : ''}`,
        });
      }
    }
  }
  return out;
}
