// dist/zod-mini.cjs: the part of zod/mini the dispatch bundle's schemas use, loaded by the dispatch hook only if one of
// them is ever built there (src/hook-runner/shims/zod-mini-lazy.ts exports the same names).
export {
  array,
  boolean,
  config,
  extend,
  int,
  literal,
  looseObject,
  nullable,
  nullish,
  number,
  object,
  optional,
  partial,
  positive,
  record,
  regex,
  string,
  unknown,
  enum,
} from 'zod/mini';
