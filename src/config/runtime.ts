/**
 * Policy and prices for this process, from the effective file (config/effective-file.ts) when it describes the inputs,
 * else from the files through the slow path (config/policy-load.ts, which rewrites it), which this process's entry
 * names with usePolicySlowPath. Hooks are short-lived; in-process plugins reuse them.
 */
import { existsSync } from 'node:fs';
import type { Policy } from '../contracts/config.js';
import type { Harness } from '../contracts/harness.js';
import { currentInputs, PROJECT_CONFIG_FILE, readEffective, type Effective, type Inputs } from './effective-file.js';
import type * as PolicyLoad from './policy-load.js';
import type { Env } from '../io/paths.js';
import { createPriceLookup, type PriceLookup } from '../prices/lookup.js';
import { overridesCatalog } from '../prices/overrides.js';
import { joinPath } from '../io/paths.js';

export type Runtime = { policy: Policy; policyDiagnostics: string[]; prices: PriceLookup };

/** What this module needs of the slow path: files read and validated with zod (config/policy-load.ts). */
export type PolicySlowPath = typeof PolicyLoad.policySlowPath;

let loadSlowPath: (() => PolicySlowPath) | null = null;
let slowPath: PolicySlowPath | null = null;

/**
 * How this process reaches the slow path; its entry calls this once, at load. A dispatch bundle passes a loader that
 * requires dist/policy-load.cjs (config/policy-load-bundle.ts), called only when the effective file cannot serve or a
 * project file is present, so a dispatch the file serves never loads zod. Every other entry passes the policySlowPath
 * it bundles. Not imported here: this module is in every dispatch bundle, and an import would bring zod with it.
 */
export function usePolicySlowPath(load: () => PolicySlowPath): void {
  loadSlowPath = load;
  slowPath = null;
}

/** Throws when no entry named the slow path: a dispatch fails open on it, with one diagnostic (runtime/dispatch.ts). */
function slow(): PolicySlowPath {
  if (slowPath) return slowPath;
  if (!loadSlowPath) {
    const err = new Error('no policy slow path: the entry did not call usePolicySlowPath (config/runtime.ts)');
    err.name = 'PolicySlowPathMissing';
    throw err;
  }
  slowPath = loadSlowPath();
  return slowPath;
}

/**
 * The slow path's rewrite, then read back from the file as the next dispatch reads it. A command hook's V8 code cache is
 * taken after its run and holds only the functions that run compiled (hook-runner/loader.ts); the slow path parses with
 * its own bundle's copy, so a cache made by the run that rebuilt the file (the first dispatch after a policy edit or an
 * upgrade) lacked this bundle's reader and every later dispatch compiled it lazily (~1.7 M instructions, bench/README.md
 * session 17). What the slow path returned stands when the read-back cannot serve (the file was not saved).
 */
function rebuilt(env: Env, inputs: Inputs | null): Effective {
  const eff = slow().rebuildEffective(env);
  return (inputs && readEffective(env, inputs, true)) ?? eff;
}

/** In-process hosts (OpenCode, pi) pick up policy edits within this long. */
const TTL_MS = 30_000;
const cache = new Map<string, { at: number; rt: Runtime }>();

export function loadRuntime(env: Env, cwd: string | null): Runtime {
  const key = cwd ?? '';
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.rt;
  let inputs: Inputs | null = null;
  try {
    inputs = currentInputs(env);
  } catch {
    // rebuildEffective diagnoses it.
  }
  const eff = (inputs && readEffective(env, inputs)) ?? rebuilt(env, inputs);
  // A project file is rare: asked for on every dispatch, read and validated only when there.
  const project =
    cwd && existsSync(joinPath(cwd, PROJECT_CONFIG_FILE)) ? slow().applyProjectFile(eff.policy, cwd, env) : null;
  const policy = project?.policy ?? eff.policy;
  const diagnostics = project ? [...eff.diagnostics, ...project.diagnostics] : eff.diagnostics;
  const overrides = overridesCatalog(policy.priceOverrides);
  // The policy carries each harness's own keys (its alias tables read them: Claude Code's provider).
  const prices = createPriceLookup(overrides ? [overrides, ...eff.layers] : eff.layers, policy);
  const rt = { policy, policyDiagnostics: diagnostics, prices };
  cache.set(key, { at: Date.now(), rt });
  return rt;
}

/**
 * Prices a harness declared for its models (OpenCode model.cost, pi ctx.model.cost): kept as the lowest price layer
 * (prices/declared.ts); a new one rewrites the effective file and drops the cached runtimes.
 */
export function declareModelPrices(
  env: Env,
  harness: Harness,
  declared: readonly { model: string | null; cost: unknown }[],
): void {
  if (slow().declarePrices(env, harness, declared)) cache.clear();
}

export function clearRuntimeCache(): void {
  cache.clear();
}
