/** Policy and prices for this process, loaded once: hooks are short-lived, in-process plugins reuse them. */
import type { Policy } from '../contracts/config.js';
import { loadPolicy } from '../config/load.js';
import type { Env } from '../io/paths.js';
import { loadCatalogLayers } from '../prices/load.js';
import { createPriceLookup, type PriceLookup } from '../prices/lookup.js';
import { rememberDeclared } from '../prices/declared.js';
import type { Harness } from '../contracts/harness.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { memoInputs, memoLookup, readMemo, writeMemo, type MemoContent, type MemoInputs } from './dispatch-memo.js';

/** `saveMemo`: a command hook's runtime writes what it loaded or resolved anew for the next process (dispatch-memo.ts). */
export type Runtime = { policy: Policy; policyDiagnostics: string[]; prices: PriceLookup; saveMemo?: () => void };

/** In-process hosts (OpenCode, pi) pick up policy edits within this long. */
const TTL_MS = 30_000;
const cache = new Map<string, { at: number; rt: Runtime }>();

/** Set by a command hook's bundle (hook-runner/dispatch-main.ts): its build id keys the memo. null: no memo. */
let memo: { buildId: string; harness: Harness; now: () => number } | null = null;
let memoWritten = false;

/** `now`: the clock that decides whether the inputs have settled (tests move it on rather than wait). */
export function useDispatchMemo(use: { buildId: string; harness: Harness; now?: () => number } | null): void {
  memo = use ? { now: Date.now, ...use } : null;
  memoWritten = false;
  cache.clear();
}

/**
 * Whether this process wrote a memo: then the next hook will load its runtime from it, and that run, not this one,
 * should leave V8's code cache, which holds only the functions that ran (loading from the files compiles ~20% more).
 */
export const wroteDispatchMemo = (): boolean => memoWritten;

export function loadRuntime(env: Env, cwd: string | null): Runtime {
  const key = cwd ?? '';
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.rt;
  const rt = memo ? loadMemoised(env, cwd, memo) : loadFromFiles(env, cwd);
  cache.set(key, { at: Date.now(), rt });
  return rt;
}

function loadFromFiles(env: Env, cwd: string | null): Runtime {
  const { policy, diagnostics } = loadPolicy(env, cwd);
  return { policy, policyDiagnostics: diagnostics, prices: lookupFromFiles(env, policy) };
}

const lookupFromFiles = (env: Env, policy: Policy): PriceLookup =>
  createPriceLookup(loadCatalogLayers(env, policy), { claudeProvider: policy.claudeProvider });

/** From the memo when its key matches the files; else from the files, and saveMemo writes one for the next hook. */
function loadMemoised(env: Env, cwd: string | null, { buildId, harness, now }: NonNullable<typeof memo>): Runtime {
  let inputs: MemoInputs;
  try {
    inputs = memoInputs(env, harness, cwd, buildId, now());
  } catch (err) {
    diagnose('warn', 'dispatch-memo', `inputs unreadable, memo not used: ${errorText(err)}`, {}, env);
    return loadFromFiles(env, cwd);
  }
  const stored = readMemo(inputs, env);
  let content: MemoContent;
  let full: () => PriceLookup;
  if (stored) {
    content = stored;
    full = () => lookupFromFiles(env, stored.policy);
  } else {
    const loaded = loadFromFiles(env, cwd);
    content = {
      policy: loaded.policy,
      policyDiagnostics: loaded.policyDiagnostics,
      catalogDate: loaded.prices.catalogDate,
      catalogVersion: loaded.prices.catalogVersion,
      resolutions: {},
    };
    full = () => loaded.prices;
  }
  const prices = memoLookup(content, full);
  const saveMemo = () => {
    if (!inputs.settled || (stored && prices.added() === 0)) return;
    try {
      writeMemo(inputs, content, env);
      memoWritten = true;
    } catch (err) {
      diagnose('warn', 'dispatch-memo', `not saved: ${errorText(err)}`, { path: inputs.path }, env);
    }
  };
  return { policy: content.policy, policyDiagnostics: content.policyDiagnostics, prices, saveMemo };
}

/**
 * Prices a harness declared for its models (OpenCode model.cost, pi ctx.model.cost): kept as the lowest price
 * layer (prices/declared.ts); a new one drops the cached lookups so the next dispatch prices with it.
 */
export function declareModelPrices(
  env: Env,
  harness: Harness,
  declared: readonly { model: string | null; cost: unknown }[],
): void {
  if (rememberDeclared(env, harness, declared)) cache.clear();
}

export function clearRuntimeCache(): void {
  cache.clear();
}
