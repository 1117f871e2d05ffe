/**
 * zod schema -> Shape (shape.ts). Build and test time only: the hot path reads the committed result. Anything outside
 * the subset Shape covers throws, so a schema change that the checker cannot follow fails the build, never silently.
 */
import type { Shape } from './shape.js';

type Def = { type: string; [k: string]: unknown };
type Schemaish = { _zod: { def: Def } };

const defOf = (s: unknown): Def => (s as Schemaish)._zod.def;

export function describeSchema(schema: unknown): Shape {
  const d = defOf(schema);
  const checks = ((d.checks as Schemaish[] | undefined) ?? []).map((c) => defOf(c) as Def & { check: string });
  const only = (allowed: string[]) => {
    for (const c of checks)
      if (!allowed.includes(c.check)) throw new Error(`describeSchema: check '${c.check}' on ${d.type} not supported`);
  };
  switch (d.type) {
    case 'string': {
      if (d.format !== undefined) throw new Error(`describeSchema: string format '${String(d.format)}' not supported`);
      only(['string_format']);
      const regex = checks.filter((c) => c.format === 'regex');
      if (regex.length !== checks.length || regex.length > 1)
        throw new Error('describeSchema: only one regex check on a string');
      const re = regex[0]?.pattern as RegExp | undefined;
      if (re && re.flags !== '') throw new Error('describeSchema: regex flags not supported');
      return re ? { t: 'string', pattern: re.source } : { t: 'string' };
    }
    case 'number': {
      if (d.format !== undefined && d.format !== 'safeint')
        throw new Error(`describeSchema: number format '${String(d.format)}' not supported`);
      only(['greater_than', 'less_than']);
      const bound = (check: string) =>
        checks
          .filter((c) => c.check === check)
          .map((c) => ({ value: c.value as number, inclusive: c.inclusive as boolean }));
      const min = bound('greater_than');
      const max = bound('less_than');
      return {
        t: 'number',
        ...(d.format === 'safeint' ? { int: true } : {}),
        ...(min.length ? { min } : {}),
        ...(max.length ? { max } : {}),
      };
    }
    case 'boolean':
    case 'unknown':
      only([]);
      return { t: d.type };
    case 'literal':
      return { t: 'literal', values: [...(d.values as (string | number | boolean | null)[])] };
    case 'enum':
      return { t: 'enum', values: Object.values(d.entries as Record<string, string>) };
    case 'optional':
    case 'nullable':
      return { t: d.type, of: describeSchema(d.innerType) };
    case 'array':
      only([]);
      return { t: 'array', of: describeSchema(d.element) };
    case 'record':
      if (defOf(d.keyType).type !== 'string' || (defOf(d.keyType).checks as unknown[] | undefined)?.length)
        throw new Error('describeSchema: record keys must be plain strings');
      return { t: 'record', of: describeSchema(d.valueType) };
    case 'object': {
      only([]);
      const catchall = d.catchall === undefined ? null : defOf(d.catchall).type;
      if (catchall !== null && catchall !== 'unknown')
        throw new Error(`describeSchema: catchall '${catchall}' not supported`);
      const shape: Record<string, Shape> = {};
      for (const [k, v] of Object.entries(d.shape as Record<string, unknown>)) shape[k] = describeSchema(v);
      return { t: 'object', shape, loose: catchall === 'unknown' };
    }
    default:
      throw new Error(`describeSchema: zod type '${d.type}' not supported`);
  }
}
