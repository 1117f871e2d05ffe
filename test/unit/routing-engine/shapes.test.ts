/**
 * The dispatch hook checks the policy, price rows and catalogs with committed Shapes instead of zod
 * (src/contracts/shape.ts). These tests keep that honest: the committed Shapes are what the schemas describe today, and
 * on generated inputs checkShape accepts exactly what zod accepts and returns what zod returns.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { HOT_SCHEMAS, hotPathShapes, serialiseShapes, type HotShapeName } from '../../../src/adapters/hot-shapes.js';
import { checkShape, ShapeError } from '../../../src/contracts/shape.js';
import { describeSchema } from '../../../src/contracts/shape-describe.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';

const root = join(import.meta.dirname, '../../..');
const snapshotRow = () => {
  const models = (
    JSON.parse(readFileSync(join(root, 'data/prices-snapshot.json'), 'utf8')) as {
      models: Record<string, Record<string, unknown>>;
    }
  ).models;
  return Object.values(models).find((r) => (r.longContext as unknown[]).length > 0)!;
};

const SEEDS: Record<HotShapeName, Record<string, unknown>> = {
  priceRow: snapshotRow(),
  catalog: {
    format: 'tiergate-catalog/1',
    version: 'bundled-x',
    date: '2026-12-01',
    source: 'test',
    fetchedAt: '2026-12-01T00:00:00Z',
    models: { [String(snapshotRow().id)]: snapshotRow() },
    aliases: { claude: { opus: String(snapshotRow().id) } },
  },
  policy: { ...DEFAULT_POLICY, priceOverrides: { 'my-model': { input: '1.5', output: '6', cacheRead: null } } },
  declaredFile: { entries: [{ harness: 'opencode', model: 'local/llama', rates: { input: '1', output: '2' } }] },
};

/** What zod says: the parsed value, or 'rejected'. */
function viaZod(schema: unknown, v: unknown): unknown {
  const r = (schema as { safeParse(x: unknown): { success: boolean; data?: unknown } }).safeParse(v);
  return r.success ? r.data : 'rejected';
}
function viaShape(name: HotShapeName, v: unknown): unknown {
  try {
    return checkShape(hotPathShapes()[name], v);
  } catch (err) {
    if (err instanceof ShapeError) return 'rejected';
    throw err;
  }
}

const anyJson = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constant(''),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('1.5', '0', '-1', '1e3', '3.', 'whole-request', 'above-only', 'x'),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);

/** A seed with some fields replaced, removed or added, down to one level of nesting. */
function mutated(seed: Record<string, unknown>) {
  const keys = Object.keys(seed);
  const edit = fc.oneof(
    fc.tuple(fc.constantFrom(...keys), anyJson).map(([k, v]) => (o: Record<string, unknown>) => ({ ...o, [k]: v })),
    fc.constantFrom(...keys).map((k) => (o: Record<string, unknown>) => {
      const { [k]: _gone, ...rest } = o;
      void _gone;
      return rest;
    }),
    fc.tuple(fc.string({ maxLength: 6 }), anyJson).map(([k, v]) => (o: Record<string, unknown>) => ({ ...o, [k]: v })),
    fc
      .tuple(fc.constantFrom(...keys), fc.string({ maxLength: 6 }), anyJson)
      .map(([k, k2, v]) => (o: Record<string, unknown>) => {
        const inner = o[k];
        return inner && typeof inner === 'object' && !Array.isArray(inner)
          ? { ...o, [k]: { ...(inner as object), [k2]: v } }
          : o;
      }),
  );
  return fc.array(edit, { maxLength: 3 }).map((edits) => edits.reduce((o, e) => e(o), seed));
}

describe('hot-path Shapes', () => {
  it('the committed file is what the schemas describe (run `npm run shapes` after changing one)', () => {
    expect(readFileSync(join(root, 'src/contracts/hot-shapes.generated.ts'), 'utf8')).toBe(
      serialiseShapes(hotPathShapes()),
    );
  });

  for (const name of Object.keys(HOT_SCHEMAS) as HotShapeName[]) {
    it(`${name}: checkShape accepts, rejects and returns exactly as zod does`, () => {
      expect(viaShape(name, SEEDS[name])).toEqual(viaZod(HOT_SCHEMAS[name], SEEDS[name]));
      expect(viaShape(name, SEEDS[name])).not.toBe('rejected');
      let rejected = 0;
      fc.assert(
        fc.property(fc.oneof(mutated(SEEDS[name]), anyJson), (v) => {
          const expected = viaZod(HOT_SCHEMAS[name], v);
          if (expected === 'rejected') rejected++;
          expect(viaShape(name, v)).toEqual(expected);
        }),
        { numRuns: 600 },
      );
      // The generator must reach both sides, or the property says little.
      expect(rejected).toBeGreaterThan(50);
      expect(rejected).toBeLessThan(590);
    });
  }

  it('a rejection names the place and the expectation, never the value', () => {
    const secret = 'the user prompt text';
    try {
      checkShape(hotPathShapes().priceRow, { ...SEEDS.priceRow, provider: { secret } });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ShapeError);
      expect((err as Error).message).toBe('invalid input at provider: expected string');
      expect((err as Error).message).not.toContain(secret);
    }
  });

  it('keeps a JSON __proto__ key as data', () => {
    const v = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const out = checkShape<Record<string, unknown>>({ t: 'record', of: { t: 'unknown' } }, v);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('refuses to describe what it cannot check', () => {
    for (const s of [
      z.url(),
      z.email(),
      z.string().check(z.minLength(2)),
      z.union([z.string(), z.number()]),
      z.object({ a: z.string() }).check(z.refine(() => true)),
      z.record(z.enum(['a']), z.string()),
    ]) {
      expect(() => describeSchema(s)).toThrow(/describeSchema/);
    }
  });
});
