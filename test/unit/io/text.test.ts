/**
 * fnv1a32 (src/io/text.ts) is FNV-1a over UTF-16 code units as the reference writes it (`Math.imul` by the prime, made
 * unsigned each step): its shifts-and-adds multiply must give the same value for every string, since callIds,
 * code-cache names and declared-price hashes written by earlier versions are matched against it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fnv1a, fnv1a32 } from '../../../src/io/text.js';

const reference = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

describe('fnv1a32', () => {
  it('is the reference FNV-1a over generated strings (any code unit, lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }), (s) => {
        expect(fnv1a32(s)).toBe(reference(s));
      }),
      { numRuns: 3000 },
    );
    const long = 'Do the lab task and report back with all findings. '.repeat(200);
    expect(fnv1a32(long)).toBe(reference(long));
  });

  it('gives the published FNV-1a values', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe('bf9cf968');
  });
});
