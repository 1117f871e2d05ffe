import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, dataDir, paths } from '../../../src/io/paths.js';

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
});
