/**
 * `node:os` for the command-hook bundles (scripts/build.mjs aliases the import here): the module is loaded at the first
 * call, not when the bundle starts. A dispatch needs it only when HOME is unset (io/paths.ts), and loading it is
 * ~0.6 M instructions of a hook's start on Node 20.20.2 (bench/README.md, session 15). `module.require` is the hook's
 * own (dist/hook.cjs's, or the one hook-runner/loader.ts gives the bundle it runs).
 */
type Os = typeof import('node:os');
declare const module: { require(id: string): unknown };

let os: Os | undefined;
const real = (): Os =>
  (os ??= (
    typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('node:os') : module.require('node:os')
  ) as Os);

export const homedir = (): string => real().homedir();
export const tmpdir = (): string => real().tmpdir();
export const userInfo = (): ReturnType<Os['userInfo']> => real().userInfo();
