/**
 * `zod/mini` in the dispatch bundles, dist/hook-dispatch-<harness>.cjs (scripts/build.mjs aliases it here). The dispatch
 * path checks everything it reads against committed Shapes (contracts/shape.ts), so the only zod left in those bundles
 * is the schemas' definitions, built on first use (contracts/lazy.ts). Bundling zod anyway made every dispatch hook
 * read, deserialise and evaluate ~30 KB it never ran (bench/README.md, "Session 4"). Each export here loads the real
 * zod (dist/zod-mini.cjs) on its first call. Every name a dispatch module uses must be here: the build fails on a
 * missing one.
 */
import type * as Zod from 'zod/mini';

type ZodMini = typeof Zod;

// Through a variable: esbuild resolves every require() call it can read at build time.
const requireAtRunTime: NodeJS.Require = require;
let zod: ZodMini | null = null;

function load(): ZodMini {
  if (!zod) {
    zod = requireAtRunTime(`${__dirname}/zod-mini.cjs`) as ZodMini;
    // As in the events bundle: a hook parses a handful of objects, zod's JIT costs more than it saves there.
    zod.config({ jitless: true });
  }
  return zod;
}

const later = <K extends keyof ZodMini>(name: K): ZodMini[K] =>
  ((...args: unknown[]) => (load()[name] as (...a: unknown[]) => unknown)(...args)) as ZodMini[K];

export const array = later('array');
export const boolean = later('boolean');
export const config = later('config');
export const extend = later('extend');
export const int = later('int');
export const literal = later('literal');
export const looseObject = later('looseObject');
export const nullable = later('nullable');
export const nullish = later('nullish');
export const number = later('number');
export const object = later('object');
export const optional = later('optional');
export const partial = later('partial');
export const positive = later('positive');
export const record = later('record');
export const regex = later('regex');
export const string = later('string');
export const unknown = later('unknown');
// `enum` is a reserved word: exported under its name from a local.
const enumOf = later('enum');
export { enumOf as enum };
