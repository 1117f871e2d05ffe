/**
 * The hook bundles' node:path (scripts/build.mjs aliases it to src/hook-runner/hook-path.ts): `join` gives the string
 * path.join gives, for any arguments, whether or not it takes its string join.
 */
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as hookPath from '../../../src/hook-runner/hook-path.js';

describe('hook-path', () => {
  it('joins as path.join does, normal paths and plain names or not', () => {
    const part = fc.stringMatching(/^[/.a]{0,8}$/);
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
        expect(hookPath.join(...parts)).toBe(path.join(...parts));
      }),
      { numRuns: 5000 },
    );
    const cases = [
      ['/', 'data'],
      ['/a/', 'data'],
      ['/a//b', 'data'],
      ['/a/./b', 'data'],
      ['/a/../b', 'data'],
      ['/a/.', 'data'],
      ['/a/..', 'data'],
      ['a', 'data'],
      ['', 'data'],
      ['/a/.b', 'c..'],
      ['/a', '.local', 'share'],
      ['/a', 'b/c'],
      ['/a', '..'],
      ['/a', ''],
      ['/a'],
    ];
    for (const c of cases) expect(hookPath.join(...c), c.join(' ')).toBe(path.join(...c));
    expect(() => hookPath.join('/a', 1 as unknown as string)).toThrow(TypeError);
  });

  it("is node:path's own for the rest", () => {
    for (const name of ['basename', 'delimiter', 'dirname', 'isAbsolute', 'resolve', 'sep'] as const)
      expect(hookPath[name]).toBe(path[name]);
  });
});
