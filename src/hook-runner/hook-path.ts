/**
 * `node:path` for the command-hook bundles and dist/hook.cjs (scripts/build.mjs aliases the import here, as it does
 * node:os to lazy-os.ts). `join` of a normal absolute path and plain names (what nearly every join on a hook's path is:
 * the data dir and a file name) is the string join, the very string path.join returns, so a hook process does not
 * compile path.join and path.normalize at their first call, ~0.5 M instructions of a hook on Node 20 (bench/README.md,
 * session 17); any other join, and every other function, is node:path's own. The functions are parenthesised so V8
 * compiles them with dist/hook.cjs's top level (io/code-cache-file.ts).
 */
type Path = typeof import('node:path');
declare const module: { require(id: string): unknown };

const real = (
  typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('node:path') : module.require('node:path')
) as Path;

/**
 * A path path.normalize returns unchanged: absolute, no trailing slash, no empty, `.` or `..` segment. String builtins
 * only (no RegExp: a Node 20 hook compiles each at its first use).
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const isNormalAbsolute = (function isNormalAbsolute(p: string): boolean {
  return (
    p.length > 1 &&
    p.charCodeAt(0) === 47 &&
    p.charCodeAt(p.length - 1) !== 47 &&
    !p.includes('//') &&
    !p.includes('/./') &&
    !p.includes('/../') &&
    !p.endsWith('/.') &&
    !p.endsWith('/..')
  );
});

/** One segment that adds itself to a path as it is: not empty, no slash, not `.` or `..`. */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const isPlainName = (function isPlainName(s: unknown): boolean {
  return typeof s === 'string' && s !== '' && s !== '.' && s !== '..' && !s.includes('/');
});

/** path.join: the string join where it gives the same string (above), else node:path's (which also checks the types). */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const join = (function join(...parts: string[]): string {
  const base = parts[0];
  if (typeof base !== 'string' || !isNormalAbsolute(base)) return real.join(...parts);
  for (let i = 1; i < parts.length; i++) if (!isPlainName(parts[i])) return real.join(...parts);
  return parts.join('/');
});

export const { basename, delimiter, dirname, isAbsolute, resolve, sep } = real;
