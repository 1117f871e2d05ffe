/**
 * The catalog layers, best first: the policy's price overrides, refreshed catalogs in the price cache directory
 * (newest fetch first), then the bundled snapshot. Read from the files by the writers of the effective file
 * (config/policy-load.ts) and the CLI; a dispatch hook reads the effective file instead. Each file is size-capped and
 * checked against CatalogSchema. A corrupt or oversized cache file is skipped with one diagnostic line; nothing here
 * throws.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CatalogSchema, PriceRowSchema, type Catalog } from '../contracts/prices.js';
import { readCatalogLines } from './catalog-lines.js';
import type { Policy } from '../contracts/config.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { existingPrivateDir } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';
import { readTextCapped, TooLarge } from '../io/read-capped.js';
import { findSnapshotPath } from './snapshot-path.js';

/** A refreshed catalog is a few hundred KB; anything far larger is not ours. */
export const MAX_CATALOG_BYTES = 8 * 1024 * 1024;
export const CACHE_SUFFIX = '.catalog.json';

let bundledCache: { path: string; catalog: Catalog | null } | null = null;

/** Everything of a catalog but its rows (checked when looked up, if at all): bundled and refreshed files alike. */
function envelopeOk(c: Catalog | null): c is Catalog {
  return (
    isRecord(c) &&
    c.format === 'tiergate-catalog/1' &&
    typeof c.version === 'string' &&
    typeof c.date === 'string' &&
    typeof c.source === 'string' &&
    isRecord(c.models) &&
    isRecord(c.aliases) &&
    Object.values(c.aliases).every((t) => isRecord(t) && Object.values(t).every((v) => typeof v === 'string'))
  );
}

/**
 * The bundled snapshot, read once per process, its rows parsed when first looked up (catalog-lines.ts). It is generated
 * and checked by the build (snapshot.test.ts), so only its envelope is checked here.
 */
export function loadBundledCatalog(env: Env = process.env, path = findSnapshotPath()): Catalog | null {
  if (!path) {
    diagnose('error', 'prices:load', 'bundled price snapshot not found', {}, env);
    return null;
  }
  if (bundledCache?.path === path) return bundledCache.catalog;
  let catalog: Catalog | null = null;
  try {
    const text = readFileSync(path, 'utf8');
    const parsed = readCatalogLines(text) ?? (JSON.parse(text) as Catalog);
    if (!envelopeOk(parsed)) throw new Error('not a tiergate-catalog/1 file');
    catalog = parsed;
  } catch (err) {
    diagnose('error', 'prices:load', `bundled price snapshot unreadable: ${errorText(err)}`, { path }, env);
  }
  bundledCache = { path, catalog };
  return catalog;
}

// overridesCatalog is pure and lives apart so Claude Code's hooks module can bundle it without zod or node:fs.
import { overridesCatalog } from './overrides.js';
import { loadDeclaredCatalog } from './declared.js';
import { isRecord } from '../contracts/record.js';

/**
 * A refreshed catalog's row, checked when first looked up (the refresh job validated the whole file before writing
 * it; this guards against a damaged file). A bad row is absent from that layer: an older layer prices the model.
 */
function isPriceRow(row: unknown, path: string, env: Env): boolean {
  const r = PriceRowSchema.safeParse(row);
  if (!r.success)
    diagnose('warn', 'prices:load', `cached catalog row invalid, ignored: ${issueAt(r.error)}`, { path }, env);
  return r.success;
}

/** Where and what, never the value (a catalog file could be anything). */
const issueAt = (err: { issues: readonly { path: PropertyKey[]; code: string }[] }): string =>
  err.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.code}`).join('; ');

/**
 * Refreshed catalogs in the price cache directory, newest fetch first; invalid files are skipped and logged. Read like
 * the bundled snapshot (rows on demand, catalog-lines.ts): a refreshed LiteLLM catalog has ~2,500 rows, and validating
 * all of them with zod in every hook process cost far more than the dispatch itself.
 */
export function loadCachedCatalogs(env: Env = process.env): Catalog[] {
  const dir = paths(env).priceCacheDir;
  let names: string[];
  try {
    // No directory before the first refresh: asked, not thrown for (an errno exception costs a hook more than asking).
    // Inside the data dir: a link in its place is refused, and so is one in a catalog's (below), never read through.
    if (!existingPrivateDir(dir)) return [];
    names = readdirSync(dir).filter((n) => n.endsWith(CACHE_SUFFIX));
  } catch (err) {
    diagnose('warn', 'prices:load', `price cache directory ignored: ${errorText(err)}`, { dir }, env);
    return [];
  }
  const found: { catalog: Catalog; name: string }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const catalog = parseCachedCatalog(readTextCapped(path, MAX_CATALOG_BYTES, { follow: false }), path, env);
      if (catalog) found.push({ catalog, name });
    } catch (err) {
      if (err instanceof TooLarge)
        diagnose(
          'warn',
          'prices:load',
          'cached catalog too large, skipped',
          { path, maxBytes: MAX_CATALOG_BYTES },
          env,
        );
      else diagnose('warn', 'prices:load', `cached catalog unreadable, skipped: ${errorText(err)}`, { path }, env);
    }
  }
  // Newest fetch first (one file per source; one without fetchedAt, placed by hand, after them), then by name.
  return found
    .sort((a, b) => cmp(b.catalog.fetchedAt ?? '', a.catalog.fetchedAt ?? '') || cmp(a.name, b.name))
    .map((f) => f.catalog);
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A refreshed catalog's text -> the catalog, or null (diagnosed) when it is not one. */
function parseCachedCatalog(text: string, path: string, env: Env): Catalog | null {
  const lines = readCatalogLines(text, (row) => isPriceRow(row, path, env));
  if (lines) {
    if (envelopeOk(lines)) return lines;
    diagnose('warn', 'prices:load', 'cached catalog invalid, skipped', { path, issue: 'envelope' }, env);
    return null;
  }
  // Written by a version before the line layout: validated whole, once per process.
  const r = CatalogSchema.safeParse(JSON.parse(text));
  if (r.success) return r.data;
  diagnose('warn', 'prices:load', 'cached catalog invalid, skipped', { path, issue: issueAt(r.error) }, env);
  return null;
}

/** Best first: policy overrides, refreshed catalogs, the bundled snapshot, then prices the harnesses declared (declared.ts). */
export function loadCatalogLayers(env: Env, policy: Pick<Policy, 'priceOverrides'>): Catalog[] {
  const overrides = overridesCatalog(policy.priceOverrides);
  return [...(overrides ? [overrides] : []), ...loadFileLayers(env)];
}

/**
 * The layers under the overrides, read afresh (the snapshot too: a long-lived host may outlive an upgrade), every row
 * of a refreshed catalog validated: what the effective file holds (config/effective-file.ts).
 */
export function loadFileLayers(env: Env): Catalog[] {
  bundledCache = null;
  const bundled = loadBundledCatalog(env);
  const declared = loadDeclaredCatalog(env);
  return [...loadCachedCatalogs(env), ...(bundled ? [bundled] : []), ...(declared ? [declared] : [])];
}

/** Tests: forget the per-process snapshot. */
export function resetBundledCatalogCache(): void {
  bundledCache = null;
}
