/**
 * The slow path of the policy and prices: every input read from its file and validated (zod), then written as the
 * effective file (effective-file.ts) for the next dispatch hook. Bundled on its own too, as dist/policy-load.cjs: a
 * dispatch bundle requires it only when the effective file cannot serve or a project file is present (its entry names
 * it with usePolicySlowPath, config/runtime.ts), so a dispatch served by the effective file never loads zod.
 */
import { diagnose, errorText } from '../io/diagnostics.js';
import { writeFileAtomic } from '../io/files.js';
import type { Env } from '../io/paths.js';
import type { Harness } from '../contracts/harness.js';
import { rememberDeclared } from '../prices/declared.js';
import { loadFileLayers } from '../prices/load.js';
import type { Catalog } from '../contracts/prices.js';
import { withoutSecrets } from '../contracts/secrets.js';
import { serialiseCatalog } from '../prices/merge.js';
import { keyTable } from '../prices/catalog-lines.js';
import {
  currentInputs,
  EFFECTIVE_FORMAT,
  effectivePath,
  parseEffective,
  type Effective,
  type Inputs,
} from './effective-file.js';
import { applyProjectFile, loadUserPolicy } from './load.js';

/** A layer as text: catalog-lines layout, or one JSON line for a layer without models (that layout needs a row). */
const layerText = (c: Catalog): string =>
  Object.keys(c.models).length > 0 ? serialiseCatalog(c) : `${JSON.stringify(c)}\n`;

export function serialiseEffective(e: Effective): string {
  const texts = e.layers.map(layerText);
  // The team URL's password stays in the user's own file (contracts/secrets.ts): nothing here needs it.
  const head = {
    format: EFFECTIVE_FORMAT,
    inputs: e.inputs,
    policy: withoutSecrets(e.policy),
    diagnostics: withoutSecrets(e.diagnostics),
  };
  const tables = texts.map((t) => keyTable(t) ?? '');
  return `${JSON.stringify({ ...head, layers: texts.map((t) => t.length), keys: tables.map((t) => t.length) })}\n${texts.join('')}${tables.join('')}`;
}

/**
 * Reads the user policy and every catalog layer afresh and writes the effective file (not durably: losing it costs one
 * slower hook; a failure is diagnosed and the next hook tries again). Returns what the file holds.
 */
export function rebuildEffective(env: Env): Effective {
  let inputs: Inputs | null = null;
  try {
    // Before any input is read: one changed after this point leaves the file stale, never wrong.
    inputs = currentInputs(env);
  } catch (err) {
    diagnose('warn', 'effective', `inputs unreadable, not saved: ${errorText(err)}`, {}, env);
  }
  const user = loadUserPolicy(env);
  const text = serialiseEffective({
    inputs: inputs ?? { user: '', snapshot: '', code: '', prices: '' },
    policy: user.policy,
    diagnostics: user.diagnostics,
    layers: loadFileLayers(env),
  });
  const path = effectivePath(env);
  if (inputs) {
    try {
      writeFileAtomic(path, text, { durable: false });
    } catch (err) {
      diagnose('warn', 'effective', `not saved: ${errorText(err)}`, { path }, env);
    }
  }
  // What the next hook will read: rows validated on the way out (prices/load.ts), parsed again only when looked up.
  return parseEffective(text);
}

/** For the writers (price refresh, `config check`, install, declared prices): never throws. */
export function writeEffective(env: Env): void {
  try {
    rebuildEffective(env);
  } catch (err) {
    diagnose('warn', 'effective', `not rebuilt: ${errorText(err)}`, {}, env);
  }
}

/** Prices a harness declared (prices/declared.ts): kept, and the effective file rewritten when one is new. */
function declarePrices(
  env: Env,
  harness: Harness,
  declared: readonly { model: string | null; cost: unknown }[],
): boolean {
  if (!rememberDeclared(env, harness, declared)) return false;
  writeEffective(env);
  return true;
}

/** What config/runtime.ts asks of the slow path: an entry names it with usePolicySlowPath (from this bundle or its own). */
export const policySlowPath = { rebuildEffective, applyProjectFile, declarePrices };
