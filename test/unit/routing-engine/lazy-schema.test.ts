import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { lazySchema } from '../../../src/contracts/lazy.js';
import { PolicySchema } from '../../../src/contracts/config.js';
import { TierSchema } from '../../../src/contracts/harness.js';

describe('lazySchema', () => {
  it('builds the schema on first use only, once', () => {
    let builds = 0;
    const S = lazySchema(() => {
      builds++;
      return z.object({ a: z.string() });
    });
    expect(builds).toBe(0);
    expect(S.parse({ a: 'x' })).toEqual({ a: 'x' });
    expect(S.safeParse({ a: 1 }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('stands in for the schema inside other schemas and zod helpers', () => {
    const Inner = lazySchema(() => z.object({ n: z.number() }));
    const Outer = lazySchema(() => z.object({ inner: Inner, list: z.array(Inner) }));
    const Extended = lazySchema(() => z.extend(Inner, { s: z.string() }));
    expect(Outer.parse({ inner: { n: 1 }, list: [{ n: 2 }] })).toEqual({ inner: { n: 1 }, list: [{ n: 2 }] });
    expect(Outer.safeParse({ inner: { n: 'x' }, list: [] }).success).toBe(false);
    expect(Extended.parse({ n: 1, s: 'y' })).toEqual({ n: 1, s: 'y' });
    expect(Object.keys(Extended.shape)).toEqual(['n', 's']);
    const issues = Outer.safeParse({ inner: { n: 'x' }, list: [] }).error?.issues ?? [];
    expect(issues[0]?.path).toEqual(['inner', 'n']);
  });

  it('the real contracts behave as plain schemas (shape, options, per-section parse)', () => {
    expect(TierSchema.options).toEqual(['cheap', 'standard', 'premium', 'parent']);
    expect(Object.hasOwn(PolicySchema.shape, 'tiers')).toBe(true);
    expect(PolicySchema.shape.mode.safeParse('warn').success).toBe(true);
    expect(PolicySchema.shape.mode.safeParse('loud').success).toBe(false);
  });
});
