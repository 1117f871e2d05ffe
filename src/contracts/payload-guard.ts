/**
 * The dispatch hooks' payload guards (src/adapters/<id>/dispatch-payload.ts). A dispatch bundle carries no zod: each
 * guard is a table of the fields its dispatch path reads and the check the zod schema makes of each, and one function
 * runs any table. test/unit/adapters/<id>/dispatch-payload.test.ts reads the table off the schema (z.pick to those
 * fields) and holds the guard's verdicts to the schema's, so the table is the schema's, never a second definition.
 */
import { isRecord } from './record.js';

/** Why a payload was refused: where and what was expected, never the value (payloads carry prompt text). */
export class PayloadError extends Error {
  constructor(
    readonly field: string,
    readonly expected: string,
  ) {
    super(`invalid payload at ${field}: expected ${expected}`);
    this.name = 'PayloadError';
  }
}

/** The payload itself: a JSON object (z.looseObject: keys the guard does not name pass through unchecked). */
export function payloadObject(raw: unknown): Record<string, unknown> {
  if (!isRecord(raw)) throw new PayloadError('(root)', 'object');
  return raw;
}

/** z.string() */
function requireString(p: Record<string, unknown>, key: string): void {
  if (typeof p[key] !== 'string') throw new PayloadError(key, 'string');
}

/** z.optional(z.string()) */
function optionalString(p: Record<string, unknown>, key: string): void {
  if (p[key] !== undefined) requireString(p, key);
}

/** z.nullish(z.string()) */
function nullishString(p: Record<string, unknown>, key: string): void {
  if (p[key] !== undefined && p[key] !== null) requireString(p, key);
}

/** z.record(z.string(), z.unknown()) */
function requireRecord(p: Record<string, unknown>, key: string): void {
  if (!isRecord(p[key])) throw new PayloadError(key, 'object');
}

/** A field's check, named by the zod schema it mirrors. */
const CHECKS = {
  /** z.string() */
  string: requireString,
  /** z.optional(z.string()) */
  'optional string': optionalString,
  /** z.nullish(z.string()) */
  'nullish string': nullishString,
  /** z.record(z.string(), z.unknown()) */
  record: requireRecord,
} as const;

export type FieldCheck = keyof typeof CHECKS;
/** Field -> its check, in the order checked (a payload with several faults is refused at the first). */
export type GuardSpec = Readonly<Record<string, FieldCheck>>;

/** A guard's fields grouped by their check, each group in the order checked: `{ string: ['tool_name'], ... }`. */
type Groups = Partial<Record<FieldCheck, readonly string[]>>;
type FieldsOf<G extends Groups> = {
  [C in keyof G]: G[C] extends readonly (infer F extends string)[] ? F : never;
}[keyof G];

/** The table of a guard written by groups (groups in the order written, then fields in each). */
export function guardSpec<const G extends Groups>(groups: G): Readonly<Record<FieldsOf<G>, FieldCheck>> {
  const spec: Record<string, FieldCheck> = {};
  for (const [check, fields] of Object.entries(groups) as [FieldCheck, readonly string[]][])
    for (const f of fields) spec[f] = check;
  return spec as Record<FieldsOf<G>, FieldCheck>;
}

/** The guard a table describes: throws PayloadError (the field, never its value) where the schema would refuse one. */
export function payloadGuard<T>(spec: GuardSpec): (raw: unknown) => T {
  const checks = Object.entries(spec).map(([key, check]) => [key, CHECKS[check]] as const);
  return (raw) => {
    const p = payloadObject(raw);
    for (const [key, check] of checks) check(p, key);
    return p as T;
  };
}
