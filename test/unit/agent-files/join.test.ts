/**
 * joinPath (src/agent-files/join.ts) is node:path's join wherever it concatenates: checked against join over paths made
 * of the pieces that change what join does (empty, `.` and `..` segments, doubled and trailing slashes, `/` alone,
 * relative folders), and it does concatenate the paths a lookup builds (else it would cost what join costs).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { joinPath } from '../../../src/agent-files/join.js';

// node:path's join, counted: the lookup's own paths must not reach it (else they cost what join costs).
vi.mock('node:path', async (original) => {
  const path = await original<typeof import('node:path')>();
  return { ...path, join: vi.fn(path.join) };
});

const piece = fc.constantFrom('', '.', '..', '...', 'a', '.gemini', 'agents', 'x.md', '_y.md', ' ', 'é', '.a.', 'a..');
const segmented = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(piece, fc.constantFrom('/', '//', '///')), { maxLength: 5 }), fc.boolean())
  .map(([abs, parts, trailing]) => {
    const body = parts.map(([p, sep], i) => (i === parts.length - 1 && !trailing ? p : p + sep)).join('');
    return abs ? `/${body}` : body;
  });

describe('joinPath', () => {
  it('is join(dir, ...names) for generated folders and names', () => {
    fc.assert(
      fc.property(segmented, fc.array(fc.oneof(piece, segmented), { maxLength: 4 }), (dir, names) => {
        expect(joinPath(dir, ...names)).toBe(join(dir, ...names));
      }),
      { numRuns: 5000 },
    );
  });

  it('is join at the edges: the root, a trailing slash or dot, an empty or dotted name, no name', () => {
    const cases: [string, ...string[]][] = [
      ['/', 'a'],
      ['/a/', 'b'],
      ['/a/.', 'b'],
      ['/a/..', 'b'],
      ['/a//b', 'c'],
      ['/a', ''],
      ['/a', '.'],
      ['/a', '..'],
      ['/a', 'b/c'],
      ['/a', '/b'],
      ['/a'],
      ['a', 'b'],
      ['', 'b'],
      ['./a', 'b'],
    ];
    for (const [dir, ...names] of cases) expect(joinPath(dir, ...names)).toBe(join(dir, ...names));
  });

  it('concatenates the paths a lookup builds (an absolute normal folder, plain names)', () => {
    vi.mocked(join).mockClear();
    expect(joinPath('/home/u/.gemini', 'agents', 'pricey.md')).toBe('/home/u/.gemini/agents/pricey.md');
    expect(joinPath('/h/.gemini', 'extensions', 'x', '.gemini-extension-install.json')).toBe(
      '/h/.gemini/extensions/x/.gemini-extension-install.json',
    );
    expect(join).not.toHaveBeenCalled();
    expect(joinPath('/h/.gemini/', 'agents')).toBe('/h/.gemini/agents');
    expect(join).toHaveBeenCalledTimes(1);
  });
});
