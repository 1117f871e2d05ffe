/**
 * The pieces of the dispatch hooks' payload guards (src/adapters/<id>/dispatch-payload.ts). A dispatch bundle carries no
 * zod: each guard checks, by hand, only the fields its dispatch path reads, with the verdict its zod schema gives those
 * fields (z.pick of the schema; test/unit/adapters/<id>/dispatch-payload.test.ts holds each guard to its schema).
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
export function requireString(p: Record<string, unknown>, key: string): void {
  if (typeof p[key] !== 'string') throw new PayloadError(key, 'string');
}

/** z.optional(z.string()) */
export function optionalString(p: Record<string, unknown>, key: string): void {
  if (p[key] !== undefined) requireString(p, key);
}

/** z.nullish(z.string()) */
export function nullishString(p: Record<string, unknown>, key: string): void {
  if (p[key] !== undefined && p[key] !== null) requireString(p, key);
}

/** z.record(z.string(), z.unknown()) */
export function requireRecord(p: Record<string, unknown>, key: string): void {
  if (!isRecord(p[key])) throw new PayloadError(key, 'object');
}
