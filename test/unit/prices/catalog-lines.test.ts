import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../../src/contracts/prices.js';
import { INDEX_AFTER_MISSES, keyTable, readCatalogLines } from '../../../src/prices/catalog-lines.js';
import { serialiseCatalog } from '../../../src/prices/merge.js';

const snapshotText = readFileSync(join(import.meta.dirname, '../../../data/prices-snapshot.json'), 'utf8');

/** A catalog whose rows are the snapshot's first row under `keys` (ids m0, m1, … in order). */
function catalogOf(keys: string[]): Catalog {
  const row = JSON.parse(snapshotText).models[Object.keys(JSON.parse(snapshotText).models)[0]!];
  const models = Object.fromEntries(keys.map((k, i) => [k, { ...row, id: `m${i}` }]));
  return { format: 'tiergate-catalog/1', version: 'v', date: '2026-01-01', source: 's', models, aliases: {} };
}

describe('catalog read line by line', () => {
  it('equals JSON.parse of the bundled snapshot, row for row and as a whole', () => {
    const full = JSON.parse(snapshotText) as Catalog;
    const lazy = readCatalogLines(snapshotText);
    expect(lazy).not.toBeNull();
    expect(Object.keys(lazy!.models)).toEqual(Object.keys(full.models));
    for (const id of Object.keys(full.models)) expect(lazy!.models[id]).toEqual(full.models[id]);
    expect(JSON.parse(JSON.stringify(lazy))).toEqual(full);
  });

  it('answers membership like a plain object, without inherited names', () => {
    const lazy = readCatalogLines(snapshotText)!;
    const some = Object.keys(lazy.models)[0]!;
    expect(Object.hasOwn(lazy.models, some)).toBe(true);
    expect(some in lazy.models).toBe(true);
    for (const name of ['nope', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(Object.hasOwn(lazy.models, name)).toBe(false);
      expect(lazy.models[name]).toBeUndefined();
    }
  });

  it('parses a row once, and is read-only', () => {
    const lazy = readCatalogLines(snapshotText)!;
    const some = Object.keys(lazy.models)[0]!;
    expect(lazy.models[some]).toBe(lazy.models[some]);
    expect(() => {
      'use strict';
      (lazy.models as Record<string, unknown>)[some] = null;
    }).toThrow(TypeError);
    expect(lazy.models[some]).not.toBeNull();
  });

  it('reads keys that need JSON escapes', () => {
    const row = JSON.parse(snapshotText).models[Object.keys(JSON.parse(snapshotText).models)[0]!];
    const c: Catalog = {
      format: 'tiergate-catalog/1',
      version: 'v',
      date: '2026-01-01',
      source: 's',
      models: { 'a"b\\c': row, plain: row },
      aliases: { claude: { opus: 'plain' } },
    };
    const lazy = readCatalogLines(serialiseCatalog(c));
    expect(JSON.parse(JSON.stringify(lazy))).toEqual(c);
  });

  it('finds every row and no other, before and after a miss builds its index, whatever the keys hold', () => {
    const key = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('a"b', '\\', '\\"', '":{', 'x\\":{y', '\n', 'é', '__proto__', 'constructor'),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { minLength: 1, maxLength: 6 }),
        fc.array(key, { maxLength: 6 }),
        fc.boolean(),
        (keys, probes, missFirst) => {
          const c = catalogOf(keys);
          const lazy = readCatalogLines(serialiseCatalog(c))!;
          if (missFirst)
            for (let i = 0; i < INDEX_AFTER_MISSES; i++)
              expect(Object.hasOwn(lazy.models, `\u0000absent${i}`)).toBe(false);
          for (const k of [...probes, ...keys])
            expect(Object.hasOwn(lazy.models, k) ? lazy.models[k] : null).toEqual(
              Object.hasOwn(c.models, k) ? c.models[k] : null,
            );
          expect(Object.keys(lazy.models)).toEqual(Object.keys(JSON.parse(serialiseCatalog(c)).models));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a damaged row throws when it is looked up (routeDispatch turns that into an allow plus a diagnostic)', () => {
    const lazy = readCatalogLines(snapshotText.replace(/\n("[^"]+"):\{"id"/, '\n$1:{"id"::'))!;
    const first = JSON.parse(
      snapshotText.slice(
        snapshotText.indexOf('\n"models":{\n') + 12,
        snapshotText.indexOf(':{', snapshotText.indexOf('\n"models":{\n') + 12),
      ),
    ) as string;
    expect(() => lazy.models[first]).toThrow(SyntaxError);
    expect(lazy.models[Object.keys(JSON.parse(snapshotText).models)[1]!]).toBeTruthy();
  });

  it('gives up (null) on any other layout, so the caller parses the whole text', () => {
    const c = JSON.parse(snapshotText) as Catalog;
    expect(readCatalogLines(JSON.stringify(c))).toBeNull();
    expect(readCatalogLines(JSON.stringify(c, null, 2))).toBeNull();
    expect(readCatalogLines(snapshotText.slice(0, snapshotText.length >> 1))).toBeNull();
    expect(readCatalogLines('')).toBeNull();
  });

  it('with its key table: every row and no other, whatever the keys hold; a table of another text is dropped at its first wrong entry', () => {
    const key = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('a"b', '\\', '\\"', '":{', 'x\\":{y', '\n', 'é', '__proto__', 'constructor', '1'),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { minLength: 1, maxLength: 6 }),
        fc.array(key, { maxLength: 6 }),
        (keys, probes) => {
          const c = catalogOf(keys);
          const text = serialiseCatalog(c);
          const table = keyTable(text)!;
          expect(table.split('\n').length).toBe(keys.length + 2);
          const lazy = readCatalogLines(text, undefined, table)!;
          for (const k of [...probes, ...keys])
            expect(Object.hasOwn(lazy.models, k) ? lazy.models[k] : null).toEqual(
              Object.hasOwn(c.models, k) ? c.models[k] : null,
            );
          expect(Object.keys(lazy.models)).toEqual(Object.keys(JSON.parse(text).models));
        },
      ),
      { numRuns: 300 },
    );
    // Offsets shifted by one: the first lookup finds its entry does not point at its row, and searches the text.
    const full = JSON.parse(snapshotText) as Catalog;
    const lazy = readCatalogLines(snapshotText, undefined, keyTable(`x${snapshotText}`)!)!;
    for (const id of Object.keys(full.models).slice(0, 20)) expect(lazy.models[id]).toEqual(full.models[id]);
    expect(keyTable(JSON.stringify(full))).toBeNull();
  });
});
