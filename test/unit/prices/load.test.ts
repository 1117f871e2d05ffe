import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../../src/contracts/prices.js';
import { paths } from '../../../src/io/paths.js';
import {
  loadBundledCatalog,
  loadCatalogLayers,
  MAX_CATALOG_BYTES,
  resetBundledCatalogCache,
} from '../../../src/prices/load.js';
import { createPriceLookup } from '../../../src/prices/lookup.js';
import { findSnapshotPath } from '../../../src/prices/snapshot-path.js';
import { bundled, ROOT } from './catalog.js';

let home: string;
let env: Record<string, string>;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tiergate-prices-'));
  env = { TIERGATE_HOME: home };
  resetBundledCatalogCache();
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const cacheCatalog = (version: string, models: Catalog['models']): Catalog => ({
  format: 'tiergate-catalog/1',
  version,
  date: '2026-12-03',
  source: 'test',
  models,
  aliases: {},
});
const writeCache = (name: string, content: string, mtimeSec: number) => {
  const dir = paths(env).priceCacheDir;
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, content);
  utimesSync(p, mtimeSec, mtimeSec);
};
const diagnostics = () => {
  try {
    return readFileSync(paths(env).diagnostics, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};
const luna = bundled.models['gpt-6-luna']!;

describe('loadCatalogLayers', () => {
  it('with nothing configured: just the bundled snapshot', () => {
    const layers = loadCatalogLayers(env, { priceOverrides: {} });
    expect(layers.map((l) => l.version)).toEqual([bundled.version]);
    expect(diagnostics()).toEqual([]);
  });

  it('overrides first, then cached catalogs newest first, then the bundled snapshot', () => {
    // Ordered by when each was fetched, not by file time (a copied file keeps its fetchedAt) nor by name.
    writeCache(
      'a-old.catalog.json',
      JSON.stringify({
        ...cacheCatalog('refresh-old', { 'gpt-6-luna': { ...luna, rates: { ...luna.rates, input: '0.3' } } }),
        fetchedAt: '2026-12-01T00:00:00.000Z',
      }),
      1_800_000_000,
    );
    writeCache(
      'b-new.catalog.json',
      JSON.stringify({
        ...cacheCatalog('refresh-new', { 'gpt-6-luna': { ...luna, rates: { ...luna.rates, input: '0.2' } } }),
        fetchedAt: '2026-12-02T00:00:00.000Z',
      }),
      1_700_000_000,
    );
    writeCache('c-hand.catalog.json', JSON.stringify(cacheCatalog('hand-placed', {})), 1_900_000_000);
    writeCache('ignored.json', '{}', 1_800_000_000);
    const layers = loadCatalogLayers(env, { priceOverrides: { 'openai/gpt-6-sol': { input: '1.5', output: '7' } } });
    expect(layers.map((l) => l.version)).toEqual([
      'override',
      'refresh-new',
      'refresh-old',
      'hand-placed',
      bundled.version,
    ]);
    const lookup = createPriceLookup(layers, { claudeProvider: 'anthropic' });
    expect(lookup.resolve('gpt-6-luna', 'codex')).toMatchObject({
      catalogVersion: 'refresh-new',
      price: { rates: { input: '0.2' } },
    });
    // An override written as provider/model also prices the canonical id, with no catalog tier carried over.
    const sol = lookup.resolve('gpt-6-sol', 'codex');
    expect(sol).toMatchObject({
      catalogVersion: 'override',
      how: 'exact',
      price: { rates: { input: '1.5', output: '7', cacheRead: null }, longContext: [], source: 'override' },
    });
    expect(lookup.resolve('openai/gpt-6-sol', 'opencode').catalogVersion).toBe('override');
    expect(lookup.catalogDate).toBe('2026-12-03');
  });

  it('skips a corrupt or invalid cache file with one diagnostic line each, and keeps going', () => {
    writeCache('broken.catalog.json', '{"format":', 1_800_000_000);
    writeCache(
      'wrong.catalog.json',
      JSON.stringify({ format: 'tiergate-catalog/1', version: 'x', models: { a: { id: 1 } } }),
      1_800_000_000,
    );
    writeCache('good.catalog.json', JSON.stringify(cacheCatalog('refresh-good', {})), 1_700_000_000);
    const layers = loadCatalogLayers(env, { priceOverrides: {} });
    expect(layers.map((l) => l.version)).toEqual(['refresh-good', bundled.version]);
    const lines = diagnostics();
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => l.where)).toEqual(['prices:load', 'prices:load']);
    expect(lines.map((l) => l.message).join('\n')).toMatch(/unreadable[\s\S]*invalid|invalid[\s\S]*unreadable/);
  });

  it('skips a cached catalog past the size cap, read no further than the cap, and says so', () => {
    writeCache(
      'huge.catalog.json',
      `${JSON.stringify(cacheCatalog('refresh-huge', {}))}${' '.repeat(MAX_CATALOG_BYTES)}`,
      1_800_000_000,
    );
    const layers = loadCatalogLayers(env, { priceOverrides: {} });
    expect(layers.map((l) => l.version)).toEqual([bundled.version]);
    expect(diagnostics().map((l) => l.message)).toEqual(['cached catalog too large, skipped']);
  });

  it('finds the snapshot from both the source layout (src/prices) and the bundle layout (dist/)', () => {
    expect(findSnapshotPath(join(ROOT, 'src/prices'))).toBe(join(ROOT, 'data/prices-snapshot.json'));
    expect(findSnapshotPath(join(ROOT, 'dist'))).toBe(join(ROOT, 'data/prices-snapshot.json'));
    expect(findSnapshotPath(home)).toBeNull();
  });

  it('a missing or unreadable snapshot fails open: no layer, one diagnostic', () => {
    expect(loadBundledCatalog(env, null)).toBeNull();
    const bad = join(home, 'bad.json');
    writeFileSync(bad, '[]');
    expect(loadBundledCatalog(env, bad)).toBeNull();
    expect(diagnostics().map((l) => l.message)).toEqual([
      'bundled price snapshot not found',
      expect.stringMatching(/unreadable/),
    ]);
  });
});

describe('refreshed catalogs in the line layout (what the refresh job writes)', () => {
  it('rows come from the cache; a damaged row is ignored (logged) and a lower layer prices that model', async () => {
    const { serialiseCatalog } = await import('../../../src/prices/merge.js');
    const good = bundled.models['gpt-6-luna']!;
    const cat = cacheCatalog('refresh-test', {
      'gpt-6-luna': { ...good, rates: { ...good.rates, input: '0.07' }, source: 'refresh-test' },
      'gpt-6-sol': { ...good, id: 'gpt-6-sol', rates: { ...good.rates, input: 'cheap!' } },
    });
    writeCache(
      'litellm.catalog.json',
      serialiseCatalog({ ...cat, fetchedAt: '2026-12-03T00:00:00.000Z' }),
      2_000_000_000,
    );
    const lookup = createPriceLookup(loadCatalogLayers(env, { priceOverrides: {} }), { claudeProvider: 'anthropic' });
    const luna = lookup.resolve('gpt-6-luna', 'codex');
    expect([luna.price?.rates.input, luna.catalogVersion]).toEqual(['0.07', 'refresh-test']);
    const sol = lookup.resolve('gpt-6-sol', 'codex');
    expect(sol.catalogVersion).toBe(bundled.version);
    expect(sol.price?.rates.input).toBe(bundled.models['gpt-6-sol']!.rates.input);
    const log = readFileSync(paths(env).diagnostics, 'utf8');
    expect(log).toContain('cached catalog row invalid, ignored');
    expect(log).not.toContain('cheap!');
  });

  it('a line-layout file with a broken envelope is skipped whole', () => {
    writeCache(
      'x.catalog.json',
      '{"format":"something-else","version":"v","date":"d","source":"s",\n"models":{\n"a":{}\n},\n"aliases":{\n}}\n',
      2_000_000_000,
    );
    const layers = loadCatalogLayers(env, { priceOverrides: {} });
    expect(layers.map((l) => l.version)).not.toContain('v');
    expect(readFileSync(paths(env).diagnostics, 'utf8')).toContain('cached catalog invalid, skipped');
  });
});
