/**
 * tiergate priceOverrides for the fake/* models the chat-API suites (pi, opencode) configure, at the list prices their
 * provider configs declare (pi-run.ts, opencode-run.ts): no catalog knows `fake/*`.
 */
const PRICES = {
  parent: { input: '3', output: '15', cacheRead: '0.3', cacheWrite5m: '3.75' },
  big: { input: '15', output: '75', cacheRead: '1.5', cacheWrite5m: '18.75' },
  small: { input: '0.25', output: '1.25', cacheRead: '0.025', cacheWrite5m: '0.3125' },
} as const;

/** priceOverrides naming only the models given: `fakePrices('parent', 'small')`. */
export function fakePrices(
  ...models: Array<keyof typeof PRICES>
): Record<string, (typeof PRICES)[keyof typeof PRICES]> {
  return Object.fromEntries(models.map((m) => [`fake/${m}`, PRICES[m]]));
}
