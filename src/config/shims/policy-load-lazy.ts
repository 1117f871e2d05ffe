/**
 * policy-load.ts as the dispatch bundles see it (scripts/build.mjs points their import of it here): dist/policy-load.cjs,
 * its own bundle with zod, required on the first call, so a dispatch the effective file serves never reads it.
 */
import type * as PolicyLoad from '../policy-load.js';
import { POLICY_LOAD_BUNDLE } from '../effective-file.js';

// Through a variable: esbuild resolves every require() call it can read at build time.
const requireAtRunTime: NodeJS.Require = require;
let real: typeof PolicyLoad | null = null;
const load = (): typeof PolicyLoad =>
  (real ??= requireAtRunTime(`${__dirname}/${POLICY_LOAD_BUNDLE}`) as typeof PolicyLoad);

export const rebuildEffective: typeof PolicyLoad.rebuildEffective = (env) => load().rebuildEffective(env);
export const applyProjectFile: typeof PolicyLoad.applyProjectFile = (user, cwd, env) =>
  load().applyProjectFile(user, cwd, env);
export const declarePrices: typeof PolicyLoad.declarePrices = (env, harness, declared) =>
  load().declarePrices(env, harness, declared);
