/**
 * Prices a harness declares for its own models, as the LAST catalog layer (below policy overrides, refreshed catalogs
 * and the bundled snapshot): the curated catalogs win whenever they know a model, and a declared price only prices what
 * they do not know (custom providers, local models), ahead of a same-family estimate. Rows carry source `harness`.
 *
 * Units (seen): OpenCode's `model.cost` (chat.params, provider config) and pi's `ctx.model.cost` are USD per 1M tokens,
 * the catalog's own unit: OpenCode `{input, output, cache: {read, write}}` (config spelling `cache_read`/`cache_write`),
 * pi `{input, output, cacheRead, cacheWrite}` (reference/opencode.md §6, pi.md: 1500 × 15 / 1e6 = 0.0225).
 * An all-zero cost is what a harness reports for a model nobody priced, so it is not a declaration: never $0.
 *
 * Kept in one small file in the price cache directory, written only when a declaration changes, so the dispatch path,
 * the drain and `tiergate explain` all see the same layer.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { CatalogSchema, type Catalog, type PriceRow, type Rates } from '../contracts/prices.js';
import type { Harness } from '../contracts/harness.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { existingPrivateDir, writeFileAtomic } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';
import { readTextCapped, TooLarge } from '../io/read-capped.js';
import { fnv1a } from '../io/text.js';

export const DECLARED_FILE = 'harness-declared.json';
/** Model names, at most this many (a config with hundreds of custom models is already unusual). */
export const MAX_DECLARED = 500;
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_NAME = 200;

export type Declared = { harness: Harness; model: string; rates: Rates };

const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 1e6 ? v : null;

/** A non-negative number as the catalog's decimal string (no exponent). */
export function decimalOf(n: number): string {
  const s = String(n);
  if (/^\d+(\.\d+)?$/.test(s)) return s;
  return n.toFixed(12).replace(/\.?0+$/, '') || '0';
}

/** A harness's `cost` object -> catalog rates, or null when it declares nothing usable (absent, malformed, all zero). */
export function ratesFromCost(cost: unknown): Rates | null {
  if (typeof cost !== 'object' || cost === null) return null;
  const c = cost as Record<string, unknown>;
  const cache = typeof c.cache === 'object' && c.cache !== null ? (c.cache as Record<string, unknown>) : {};
  const input = num(c.input);
  const output = num(c.output);
  if (input === null || output === null) return null;
  const read = num(c.cacheRead) ?? num(c.cache_read) ?? num(cache.read);
  const write = num(c.cacheWrite) ?? num(c.cache_write) ?? num(cache.write);
  if (input === 0 && output === 0 && !read && !write) return null;
  const d = (v: number | null) => (v === null ? null : decimalOf(v));
  return {
    input: decimalOf(input),
    output: decimalOf(output),
    cacheRead: d(read),
    cacheWrite5m: d(write),
    cacheWrite1h: d(write),
  };
}

/** The file's layout (its rates are checked as a catalog's, declaredCatalog). */
export const DeclaredFileSchema = z.object({
  entries: z.array(z.object({ harness: z.string(), model: z.string(), rates: z.unknown() })),
});

function filePath(env: Env): string {
  return join(paths(env).priceCacheDir, DECLARED_FILE);
}

function readDeclared(env: Env): Declared[] {
  const path = filePath(env);
  try {
    // Usually absent (only OpenCode and pi declare prices): asked without a throw. Inside the data dir: a link in the
    // directory's or the file's place is refused (RefusedFile, diagnosed below), never read through.
    if (!existingPrivateDir(paths(env).priceCacheDir) || !lstatSync(path, { throwIfNoEntry: false })) return [];
    // The cap is held by the read itself (read-capped.ts), as for the policy files and the catalogs.
    return DeclaredFileSchema.parse(JSON.parse(readTextCapped(path, MAX_FILE_BYTES, { follow: false })))
      .entries as Declared[];
  } catch (err) {
    const why = err instanceof TooLarge ? 'file too large' : errorText(err);
    if ((err as { code?: string }).code !== 'ENOENT')
      diagnose('warn', 'prices:declared', `ignored: ${why}`, { path }, env);
    return [];
  }
}

/** What this process last wrote or read, so a harness repeating the same cost (every chat.params) writes nothing. */
const known = new Map<string, string>();

/**
 * Remembers declared prices (model name + the harness's cost object); writes the file once, only when one is new or
 * changed, and says so (the caller then rewrites the effective file and drops its cached runtime). Never throws.
 */
export function rememberDeclared(
  env: Env,
  harness: Harness,
  declared: readonly { model: string | null; cost: unknown }[],
): boolean {
  try {
    const fresh = new Map<string, Declared>();
    for (const d of declared) {
      const rates = ratesFromCost(d.cost);
      if (!d.model || d.model.length > MAX_NAME || !rates) continue;
      const key = `${harness}\u0000${d.model.toLowerCase()}`;
      if (known.get(key) !== JSON.stringify(rates)) fresh.set(key, { harness, model: d.model, rates });
    }
    if (fresh.size === 0) return false;
    const keyOf = (e: Declared) => `${e.harness}\u0000${e.model.toLowerCase()}`;
    const all = readDeclared(env);
    for (const e of all) {
      const f = fresh.get(keyOf(e));
      if (f && JSON.stringify(e.rates) === JSON.stringify(f.rates)) {
        known.set(keyOf(e), JSON.stringify(f.rates));
        fresh.delete(keyOf(e));
      }
    }
    if (fresh.size === 0) return false;
    const entries = [...all.filter((e) => !fresh.has(keyOf(e))), ...fresh.values()].slice(-MAX_DECLARED);
    writeFileAtomic(filePath(env), `${JSON.stringify({ entries })}\n`);
    for (const [k, f] of fresh) known.set(k, JSON.stringify(f.rates));
    return true;
  } catch (err) {
    diagnose('warn', 'prices:declared', errorText(err), {}, env);
    return false;
  }
}

/** A short content hash for the layer's version; node:crypto stays out of the hook process (it costs start-up time). */
/** The declared prices as a catalog layer (version `harness-<hash>`), keyed by the bare model id. */
export function declaredCatalog(entries: readonly Declared[]): Catalog | null {
  const models: Record<string, PriceRow> = {};
  for (const e of entries) {
    const name = e.model.trim().toLowerCase();
    const bare = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
    const row: PriceRow = {
      id: bare,
      provider: name.includes('/') ? name.slice(0, name.indexOf('/')) : e.harness,
      rates: e.rates,
      longContext: [],
      perRequestFee: null,
      reasoningRate: null,
      contextWindow: null,
      source: 'harness',
    };
    // Keyed by the bare model only: the resolver tries a full `provider/model` over every layer before its last segment,
    // so a full-name key here would beat a policy override written for the bare name. A later declaration wins.
    models[bare] = row;
  }
  if (Object.keys(models).length === 0) return null;
  const hash = fnv1a(JSON.stringify(entries));
  const catalog: Catalog = {
    format: 'tiergate-catalog/1',
    version: `harness-${hash}`,
    date: '',
    source: 'harness-declared prices',
    models,
    aliases: {},
  };
  const checked = CatalogSchema.safeParse(catalog);
  return checked.success ? checked.data : null; // null: a declared rate that is not a decimal string
}

export function loadDeclaredCatalog(env: Env): Catalog | null {
  const entries = readDeclared(env);
  const catalog = declaredCatalog(entries);
  if (!catalog && entries.length > 0)
    diagnose('warn', 'prices:declared', 'declared prices invalid, ignored', { path: filePath(env) }, env);
  return catalog;
}

/** Tests only. */
export function resetDeclaredMemo(): void {
  known.clear();
}
