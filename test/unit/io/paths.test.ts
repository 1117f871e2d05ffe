import { join, normalize, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childPath, dataDir, joinUnder, paths } from '../../../src/io/paths.js';

describe('childPath', () => {
  it('equals path.join for a normalised directory and a plain name', () => {
    const segment = fc.constantFrom('', '.', '..', 'a', 'tg', 'b c', 'x.y', '...', '/', '//');
    const raw = fc.array(segment, { maxLength: 6 }).map((s) => s.join('/'));
    const name = fc.stringMatching(/^[A-Za-z0-9_. -]{1,12}$/).filter((n) => n !== '.' && n !== '..');
    fc.assert(
      fc.property(raw, fc.boolean(), name, (r, absolute, n) => {
        // What the callers pass: a path join, resolve or dirname made.
        const dir = absolute ? resolve('/', r) : join(r);
        expect(childPath(dir, n)).toBe(join(dir, n));
        expect(childPath(normalize(dir), n)).toBe(join(dir, n));
      }),
      { numRuns: 2000 },
    );
  });

  it('builds the same paths join did', () => {
    const p = paths({ TIERGATE_HOME: '/tmp/x//tg/../tg2/' });
    expect(p.data).toBe('/tmp/x/tg2/data');
    expect(p.spoolDir).toBe(join(p.data, 'spool'));
    expect(p.refreshStatus).toBe(join(p.data, 'prices', 'status.json'));
    expect(p.config).toBe('/tmp/x/tg2/config/config.json');
  });
});

describe('joinUnder', () => {
  it('equals path.join for any directory an environment variable may hold', () => {
    const segment = fc.constantFrom('', '.', '..', 'a', 'tg', 'b c', 'x.y', '...', '.local', '/', '//');
    const dir = fc
      .tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }))
      .map(([abs, s]) => (abs ? '/' : '') + s.join('/'));
    const names = fc.array(fc.constantFrom('data', 'config', '.local', 'share', 'tiergate', 'config.json'), {
      minLength: 1,
      maxLength: 3,
    });
    fc.assert(
      fc.property(dir, names, (d, ns) => {
        expect(joinUnder(d, ...ns)).toBe(join(d, ...ns));
      }),
      { numRuns: 3000 },
    );
  });

  it('builds the data dir from HOME, a trailing-slash TIERGATE_HOME and a relative one', () => {
    expect(joinUnder('/home/u', '.local', 'share')).toBe('/home/u/.local/share');
    expect(dataDir({ HOME: '/home/u' })).toBe('/home/u/.local/share/tiergate');
    expect(dataDir({ TIERGATE_HOME: '/srv/tg/' })).toBe('/srv/tg/data');
    expect(dataDir({ TIERGATE_HOME: 'rel/../tg' })).toBe(join('rel/../tg', 'data'));
  });
});
