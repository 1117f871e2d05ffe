/**
 * The slow path as a dispatch bundle reaches it: dist/policy-load.cjs, its own bundle with zod, beside the dispatch
 * bundle. The dispatch entries pass this to usePolicySlowPath (config/runtime.ts), which calls it on first use only.
 */
import type * as PolicyLoad from './policy-load.js';
import { POLICY_LOAD_BUNDLE } from './effective-file.js';
import type { PolicySlowPath } from './runtime.js';

export function requirePolicyLoadBundle(): PolicySlowPath {
  // Through a variable: esbuild resolves every require() call it can read at build time, and would inline the file.
  const requireAtRunTime: NodeJS.Require = require;
  return (requireAtRunTime(`${__dirname}/${POLICY_LOAD_BUNDLE}`) as typeof PolicyLoad).policySlowPath;
}
