/** The words `tiergate explain --agent` prints for a decision, the same for every harness that explains agents. */
import type { Decision } from '../contracts/decision.js';
import type { Harness } from '../contracts/harness.js';
import type { PriceLookup } from '../contracts/prices.js';

/** What happened, in words. */
export function outcomeText(d: Decision): string {
  if (d.action === 'correct')
    return d.reason === 'default-tier-applied' ? `default tier: corrected to ${d.value}` : `corrected to ${d.value}`;
  if (d.action === 'deny') return 'denied (the model is told to retry)';
  return d.reason === 'warn-only' ? `allowed (warn mode: ${d.summary})` : 'allowed';
}

/** The chain's links for a child model: the catalog id it was priced as, then how it stands against the parent. */
export function pricedAgainstParent(
  model: string,
  harness: Harness,
  parent: string,
  decision: Decision,
  prices: PriceLookup,
): [string, string] {
  const id = prices.resolve(model, harness).id ?? `${model} (no price)`;
  const v = decision.comparison?.verdict;
  const against =
    v === 'pricier'
      ? `over the ${parent} parent`
      : v === 'equal'
        ? `priced as the ${parent} parent`
        : v === 'cheaper'
          ? `under the ${parent} parent`
          : `not comparable with the ${parent} parent`;
  return [id, against];
}
