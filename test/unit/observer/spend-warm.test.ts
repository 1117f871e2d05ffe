/**
 * The code cache's warm-up of the budget read path (src/observer/spend-warm.ts): run only in a process that took the
 * budget path (a cache for dispatches without a budget stays as small as before), and whole: the made-up summary it
 * writes reads back through the digest and the held lines with the figures it put in.
 */
import { describe, expect, it } from 'vitest';
import { noteSpendPath, warmCodeCache } from '../../../src/observer/spend-warm.js';

describe('code cache warm-up of the budget path', () => {
  it('runs nothing unless the budget path ran, then the whole read, its figures as written', () => {
    expect(warmCodeCache()).toBe(false);
    noteSpendPath();
    expect(warmCodeCache()).toBe(true);
  });
});
