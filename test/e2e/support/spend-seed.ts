/**
 * A spend summary as earlier sessions would have left it (observer/spend-summary.ts): finished children with their cost,
 * served model and agent type, so a dispatch has recorded children to draw an estimate from (issue 33 item 3's ask).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countCompletion, emptySpend, type RecentEntry } from '../../../src/observer/spend-summary.js';

/** Writes `<tiergateHome>/data/spend.json` holding `children` (cost in pico-USD), each finished a minute ago. */
export function seedSpend(
  tiergateHome: string,
  children: Array<{ pico: bigint; model: string; agent: string }>,
  now = Date.now(),
): void {
  let f = emptySpend(now);
  children.forEach((c, i) => {
    const e: RecentEntry = {
      k: `seed-${i}`,
      s: null,
      at: now - 60_000,
      pico: c.pico.toString(),
      m: c.model,
      a: c.agent,
    };
    f = countCompletion(f, e, now);
  });
  mkdirSync(join(tiergateHome, 'data'), { recursive: true });
  writeFileSync(join(tiergateHome, 'data', 'spend.json'), JSON.stringify(f));
}
