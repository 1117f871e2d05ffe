/**
 * Holds a dispatch hook's hand-written payload guard (src/adapters/<id>/dispatch-payload.ts) to its zod schema
 * (payloads.ts): on the captured payloads and on generated ones, the guard accepts exactly when the schema, picked to
 * the fields the dispatch path reads, accepts, and returns what the schema returns; a refusal names the field and the
 * expected type, never the value. Used by test/unit/adapters/<id>/dispatch-payload.test.ts.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { PayloadError, type GuardSpec } from '../../src/contracts/payload-guard.js';
import { fixturePayload } from './fixtures.js';

const FIXTURES = join(import.meta.dirname, '../fixtures');

/** The payloads captured for `harness` whose file name starts with `prefix` (`_meta` removed). */
export function capturedPayloads(
  harness: string,
  prefix: string,
): { name: string; payload: Record<string, unknown> }[] {
  const dir = join(FIXTURES, harness);
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.json'))
    .sort()
    .map((name) => ({ name, payload: fixturePayload(`${harness}/${name}`) }));
}

type LooseObject = z.ZodMiniObject<z.core.$ZodShape, z.core.$loose>;

export type GuardCase = {
  guard: (raw: unknown) => unknown;
  schema: LooseObject;
  fields: readonly string[];
  /** The guard's table (dispatch-payload.ts DISPATCH_CHECKS): it must be the one the schema gives. */
  checks: GuardSpec;
  payloads: { name: string; payload: Record<string, unknown> }[];
};

const SECRET = 'the prompt text, never in a message';

/** JSON values of every kind, and the near misses of the types the schemas ask for. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constant(''),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);

/** A captured payload with some keys replaced, removed or added, at the top level and one level down. */
function mutated(seed: Record<string, unknown>, keys: string[]): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 6 }));
  const edit = fc.oneof(
    fc.tuple(key, anyJson).map(([k, v]) => (o: Record<string, unknown>) => ({ ...o, [k]: v })),
    key.map((k) => (o: Record<string, unknown>) => {
      const { [k]: _gone, ...rest } = o;
      void _gone;
      return rest;
    }),
    fc.tuple(fc.constantFrom(...keys), fc.string({ maxLength: 6 }), anyJson).map(([k, k2, v]) => {
      return (o: Record<string, unknown>) => {
        const inner = o[k];
        return inner && typeof inner === 'object' && !Array.isArray(inner)
          ? { ...o, [k]: { ...(inner as object), [k2]: v } }
          : o;
      };
    }),
  );
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => edits.reduce((o, e) => e(o), seed));
}

type Def = {
  type: string;
  innerType?: { _zod: { def: Def } };
  keyType?: { _zod: { def: Def } };
  valueType?: { _zod: { def: Def } };
};
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** The guard check a field's zod schema calls for (the kinds payload-guard.ts mirrors), or what it is instead. */
function checkOf(schema: unknown): string {
  const d = defOf(schema);
  const inner = d.innerType ? d.innerType._zod.def : null;
  if (d.type === 'string') return 'string';
  if (d.type === 'optional' && inner?.type === 'string') return 'optional string';
  if (d.type === 'optional' && inner?.type === 'nullable' && inner.innerType?._zod.def.type === 'string')
    return 'nullish string';
  if (d.type === 'record' && d.keyType?._zod.def.type === 'string' && d.valueType?._zod.def.type === 'unknown')
    return 'record';
  return `unsupported zod ${d.type}`;
}

export function guardSuite(title: string, c: GuardCase): void {
  const picked = z.pick(
    c.schema,
    Object.fromEntries(c.fields.map((f) => [f, true])) as never,
  ) as unknown as LooseObject;
  const viaSchema = (v: unknown): unknown => {
    const r = picked.safeParse(v);
    return r.success ? { accepted: r.data } : 'rejected';
  };
  const viaGuard = (v: unknown): unknown => {
    try {
      return { accepted: c.guard(v) };
    } catch (err) {
      if (err instanceof PayloadError) return 'rejected';
      throw err;
    }
  };

  describe(title, () => {
    it('checks fields of the schema only', () => {
      expect(c.fields.length).toBeGreaterThan(0);
      expect(c.fields.filter((f) => !Object.hasOwn(c.schema.shape, f))).toEqual([]);
    });

    it("its table is the schema's: each field's check is the one its zod type calls for", () => {
      expect(Object.keys(c.checks)).toEqual([...c.fields]);
      const fromSchema = Object.fromEntries(c.fields.map((f) => [f, checkOf(c.schema.shape[f])]));
      expect(c.checks).toEqual(fromSchema);
    });

    it('accepts every captured payload, as the schema does, with the same value', () => {
      expect(c.payloads.length).toBeGreaterThan(0);
      for (const { name, payload } of c.payloads) {
        expect(c.schema.safeParse(payload).success, name).toBe(true);
        expect(viaGuard(payload), name).toEqual(viaSchema(payload));
        expect(viaGuard(payload), name).not.toBe('rejected');
      }
    });

    it('on generated payloads, accepts exactly when the schema accepts the fields it reads, with the same value', () => {
      const keys = [...new Set([...Object.keys(c.schema.shape), ...c.payloads.flatMap((p) => Object.keys(p.payload))])];
      let rejected = 0;
      fc.assert(
        fc.property(
          fc.oneof(
            fc.constantFrom(...c.payloads.map((p) => p.payload)).chain((p) => mutated(p, keys)),
            anyJson,
          ),
          (v) => {
            const expected = viaSchema(v);
            if (expected === 'rejected') rejected++;
            expect(viaGuard(v)).toEqual(expected);
          },
        ),
        { numRuns: 1500, seed: 20261204 },
      );
      // The generator reaches both sides, or the property says little.
      expect(rejected).toBeGreaterThan(150);
      expect(rejected).toBeLessThan(1350);
    });

    it('a refusal names the field and the type it expected, never the value', () => {
      const base = c.payloads[0]!.payload;
      const tried: string[] = [];
      for (const field of ['(root)', ...c.fields]) {
        // The root refuses anything but an object; an object there is a payload, refused (if at all) at a field.
        for (const bad of field === '(root)' ? [SECRET, [SECRET], 7] : [SECRET, [SECRET], { text: SECRET }, 7]) {
          const v = field === '(root)' ? bad : { ...base, [field]: bad };
          if (viaSchema(v) !== 'rejected') continue;
          tried.push(field);
          let err: unknown = null;
          try {
            c.guard(v);
          } catch (e) {
            err = e;
          }
          expect(err, field).toBeInstanceOf(PayloadError);
          expect((err as Error).message).toMatch(
            new RegExp(`^invalid payload at ${field.replace(/[()]/g, '\\$&')}: expected (string|object)$`),
          );
          expect((err as Error).message).not.toContain('prompt text');
        }
      }
      expect(new Set(tried)).toEqual(new Set(['(root)', ...c.fields]));
    });
  });
}
