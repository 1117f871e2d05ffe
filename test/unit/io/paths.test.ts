import { join, posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseName, configDir, dataDir, dirName, joinPath, paths } from '../../../src/io/paths.js';

describe('paths', () => {
  it('builds every path under a normalised TIERGATE_HOME', () => {
    const p = paths({ TIERGATE_HOME: '/tmp/x//tg/../tg2/' });
    expect(p.data).toBe('/tmp/x/tg2/data');
    expect(p.spoolDir).toBe(join(p.data, 'spool'));
    expect(p.refreshStatus).toBe(join(p.data, 'prices', 'status.json'));
    expect(p.codeCacheDir).toBe(join(p.data, 'code-cache'));
    expect(p.config).toBe('/tmp/x/tg2/config/config.json');
  });

  it('builds the data and config dirs from HOME, XDG, a trailing-slash TIERGATE_HOME and a relative one', () => {
    expect(dataDir({ HOME: '/home/u' })).toBe('/home/u/.local/share/tiergate');
    expect(dataDir({ HOME: '/home/u', XDG_DATA_HOME: '/xdg/data/' })).toBe('/xdg/data/tiergate');
    expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/tiergate');
    expect(dataDir({ TIERGATE_HOME: '/srv/tg/' })).toBe('/srv/tg/data');
    expect(dataDir({ TIERGATE_HOME: 'rel/../tg' })).toBe('tg/data');
  });

  it('joinPath, dirName and baseName equal node:path.posix join, dirname and basename for any string', () => {
    const part = fc.oneof(
      fc.stringMatching(/^[/.a]{0,7}$/),
      fc.constantFrom('', '/', '.', '..', '/..', '../', '//', '.hidden', 'a.b', '...', '/tmp/x', 'a/./b', 'a/../..'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 5 }), (parts) => {
        expect(joinPath(...parts)).toBe(posix.join(...parts));
        for (const p of [...parts, parts.join('')]) {
          expect(dirName(p)).toBe(posix.dirname(p));
          expect(baseName(p)).toBe(posix.basename(p));
        }
      }),
      { numRuns: 3000 },
    );
    for (const p of ['/home/u/.config', '/a/b/', '//a', '///', '/a//b', 'a/b/../../..', './', '.', '..'])
      expect([joinPath(p, 'x'), dirName(p), baseName(p)]).toEqual([
        posix.join(p, 'x'),
        posix.dirname(p),
        posix.basename(p),
      ]);
  });
});
