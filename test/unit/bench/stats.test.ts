import { describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs bench helper without type declarations
import { pairedRatioInterval, rng, shuffled } from '../../../bench/stats.mjs';

describe('bench/stats.mjs', () => {
  it('rng is deterministic per seed and stays in [0, 1)', () => {
    const a = rng(42);
    const b = rng(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(rng(43)()).not.toBe(rng(42)());
  });

  it('shuffled returns a permutation and leaves its input alone', () => {
    const input = Array.from({ length: 10 }, (_, i) => i);
    const next = rng(1);
    const orders = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const out = shuffled(input, next) as number[];
      expect([...out].sort((x, y) => x - y)).toEqual(input);
      orders.add(out.join(','));
    }
    expect(input).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(orders.size).toBeGreaterThan(40);
  });

  it('the interval covers the true ratio about 95% of the time, and narrows with more samples', () => {
    const noise = rng(9);
    const draw = (n: number, scale: number) => Array.from({ length: n }, () => scale * (20 + 4 * noise()));
    const trial = (n: number) => pairedRatioInterval(draw(n, 1.1), draw(n, 1), { iterations: 400 }) as [number, number];
    const trials = Array.from({ length: 120 }, () => trial(31));
    const covered = trials.filter(([lo, hi]) => lo <= 1.1 && hi >= 1.1).length / trials.length;
    expect(covered).toBeGreaterThan(0.85);
    const mean = (ws: number[]) => ws.reduce((a, b) => a + b, 0) / ws.length;
    const wide = mean(trials.map(([lo, hi]) => hi - lo));
    const narrow = mean(Array.from({ length: 20 }, () => trial(400)).map(([lo, hi]) => hi - lo));
    expect(narrow).toBeLessThan(wide / 2);
  });

  it('pairs rounds: a drift shared by both series does not widen the interval', () => {
    const base = Array.from({ length: 60 }, (_, i) => 20 + i); // the machine slows down through the run
    const [lo, hi] = pairedRatioInterval(
      base.map((x) => x * 1.2),
      base,
    ) as [number, number];
    expect(lo).toBeCloseTo(1.2, 6);
    expect(hi).toBeCloseTo(1.2, 6);
  });

  it('refuses unpaired samples', () => {
    expect(() => pairedRatioInterval([1, 2], [1])).toThrow(/equal/);
    expect(() => pairedRatioInterval([], [])).toThrow(/non-zero/);
  });
});
