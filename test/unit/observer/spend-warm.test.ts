/**
 * The code cache's warm-up of the budget read path (src/observer/spend-warm.ts): run only in a process that took the
 * budget path (a cache for dispatches without a budget stays as small as before), and whole: the made-up summary it
 * reads back through the digest and the held lines with the figures it put in. Its summary is a literal (the writer's
 * functions stay out of the cache): it must be, byte for byte, what the writer makes of the same file.
 */
import { describe, expect, it } from 'vitest';
import { summaryText } from '../../../src/observer/spend-digest.js';
import { noteSpendPath, WARM_SESSION, warmCodeCache, warmSummaryText } from '../../../src/observer/spend-warm.js';
import { RESERVATION_TTL_MS, type SpendFile } from '../../../src/observer/spend-summary.js';

describe('code cache warm-up of the budget path', () => {
  it('runs nothing unless the budget path ran, then the whole read, its figures as written', () => {
    expect(warmCodeCache()).toBe(false);
    noteSpendPath();
    expect(warmCodeCache()).toBe(true);
  });

  it("reads a summary that is the writer's own text for the same figures", () => {
    const now = 1_796_000_000_000;
    const period = { start: now - 1, end: now + 1, pico: '0', unknown: 0 };
    const f: SpendFile = {
      format: 'tiergate-spend/1',
      updatedAt: now,
      zone: null,
      day: { ...period },
      month: { ...period },
      sessions: { [WARM_SESSION]: { pico: '1', unknown: 0, last: now } },
      recent: [{ k: 'k', s: WARM_SESSION, at: now, pico: '2', a: 'agent', m: 'model' }],
      reserved: [{ c: 'c', s: WARM_SESSION, at: now, until: now + RESERVATION_TTL_MS, h: 'claude', pico: '3' }],
      started: { [WARM_SESSION]: { n: 1, last: now } },
    };
    expect(warmSummaryText(now)).toBe(summaryText(f));
  });
});
