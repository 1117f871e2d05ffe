/**
 * A zod schema's structure as plain data, and a checker for it that needs no zod at run time. Why: the first zod parse
 * in a process costs ~1 ms of warm-up (its class machinery runs for the first time), and a dispatch hook is a fresh
 * process that parses one payload. The schemas stay the single source of truth: scripts/build-shapes.ts derives each
 * Shape from its schema (describeSchema, contracts/shape-describe.ts), the result is committed, and a test fails when
 * either drifts or when checkShape and zod disagree on an input. Only the subset of zod the hot path uses is covered.
 */
import { isRecord } from './record.js';
export type Shape =
  | { t: 'string'; pattern?: string }
  | {
      t: 'number';
      int?: boolean;
      min?: { value: number; inclusive: boolean }[];
      max?: { value: number; inclusive: boolean }[];
    }
  | { t: 'boolean' }
  | { t: 'unknown' }
  | { t: 'literal'; values: (string | number | boolean | null)[] }
  | { t: 'enum'; values: string[] }
  | { t: 'optional'; of: Shape }
  | { t: 'nullable'; of: Shape }
  | { t: 'array'; of: Shape }
  | { t: 'record'; of: Shape }
  | { t: 'object'; shape: Record<string, Shape>; loose: boolean };

export class ShapeError extends Error {
  constructor(
    readonly path: (string | number)[],
    readonly expected: string,
  ) {
    // The message names where and what, never the value: payloads carry prompt text and messages reach the log.
    super(`invalid input at ${path.length ? path.join('.') : '(root)'}: expected ${expected}`);
    this.name = 'ShapeError';
  }
}

export { isRecord };
const patterns = new Map<string, RegExp>();

function put(out: Record<string, unknown>, key: string, value: unknown): void {
  // A JSON `__proto__` key is an own property, never the prototype.
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** Where a value sits, as a chain as deep as the walk: the path array is built only for an error, not copied per step. */
type At = { up: At | null; key: string | number } | null;

function fail(at: At, expected: string): never {
  const path: (string | number)[] = [];
  for (let a = at; a; a = a.up) path.unshift(a.key);
  throw new ShapeError(path, expected);
}

function check(s: Shape, v: unknown, at: At): unknown {
  switch (s.t) {
    case 'unknown':
      return v;
    case 'string':
      if (typeof v !== 'string') fail(at, 'string');
      if (s.pattern !== undefined) {
        let re = patterns.get(s.pattern);
        if (!re) patterns.set(s.pattern, (re = new RegExp(s.pattern)));
        if (!re.test(v)) fail(at, `string matching /${s.pattern}/`);
      }
      return v;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) fail(at, 'number');
      if (s.int && !Number.isSafeInteger(v)) fail(at, 'integer');
      for (const m of s.min ?? [])
        if (m.inclusive ? v < m.value : v <= m.value) fail(at, `number ${m.inclusive ? '>=' : '>'} ${m.value}`);
      for (const m of s.max ?? [])
        if (m.inclusive ? v > m.value : v >= m.value) fail(at, `number ${m.inclusive ? '<=' : '<'} ${m.value}`);
      return v;
    case 'boolean':
      if (typeof v !== 'boolean') fail(at, 'boolean');
      return v;
    case 'literal':
    case 'enum':
      if (!(s.values as unknown[]).includes(v)) fail(at, `one of ${JSON.stringify(s.values)}`);
      return v;
    case 'optional':
      return v === undefined ? v : check(s.of, v, at);
    case 'nullable':
      return v === null ? v : check(s.of, v, at);
    case 'array': {
      if (!Array.isArray(v)) fail(at, 'array');
      const out: unknown[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) out[i] = check(s.of, v[i], { up: at, key: i });
      return out;
    }
    case 'record': {
      if (!isRecord(v)) fail(at, 'object');
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) put(out, k, check(s.of, v[k], { up: at, key: k }));
      return out;
    }
    case 'object': {
      if (!isRecord(v)) fail(at, 'object');
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(s.shape)) {
        const has = Object.hasOwn(v, k);
        const r = check(s.shape[k]!, has ? v[k] : undefined, { up: at, key: k });
        if (r !== undefined || has) put(out, k, r);
      }
      if (s.loose) for (const k of Object.keys(v)) if (!Object.hasOwn(s.shape, k)) put(out, k, v[k]);
      return out;
    }
  }
}

/** What `schema.parse(value)` returns for the schema `shape` describes; throws ShapeError where it would throw. */
export function checkShape<T>(shape: Shape, value: unknown): T {
  return check(shape, value, null) as T;
}
