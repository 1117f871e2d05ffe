/**
 * `node:os` in the command-hook bundles (scripts/build.mjs aliases it here). Requiring the real module loads its native
 * binding, ~0.15 ms of every hook process (bench/README.md, "Session 4"), while a hook needs it only when HOME is unset
 * or a temporary directory is made: the module is required on first call instead. Every name a hook module imports from
 * node:os must be here; esbuild fails the build on a missing one.
 */
// Through a variable: esbuild resolves every require() call it can read through the same alias, back to this file.
const requireAtRunTime: NodeJS.Require = require;
const load = (): typeof import('node:os') => requireAtRunTime('node:os') as typeof import('node:os');

export const homedir = (): string => load().homedir();
export const tmpdir = (): string => load().tmpdir();
