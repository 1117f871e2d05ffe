/**
 * Issue 21: the local report collected its SQL rows with `push(...rows)`, which passes every row as an argument and
 * overflowed V8's stack at 400,000 sessions. append adds them one by one.
 */
import { describe, expect, it } from 'vitest';
import { append } from '../../../src/report/query.js';

describe('append', () => {
  it('adds 1,000,000 rows after the ones there, in order (push(...rows) throws RangeError on as many)', () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => i);
    expect(() => [0].push(...many)).toThrow(RangeError);
    const into = [-2, -1];
    append(into, many);
    expect(into).toHaveLength(1_000_002);
    expect(into.slice(0, 3)).toEqual([-2, -1, 0]);
    expect(into.at(-1)).toBe(999_999);
  });
});
