/**
 * The catalog layers, best first: the policy's price overrides, refreshed catalogs in the price cache directory
 * (newest fetch first), then the bundled snapshot. Runs in every hook process, so it reads little: the bundled snapshot
 * (~125 KB, parsed once per process) and whatever the refresher left, each file size-capped and checked against
 * CatalogSchema (as its Shape, contracts/shape.ts: no zod in a hook process).
 * A corrupt or oversized cache file is skipped with one diagnostic line; nothing here throws.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Catalog } from '../contracts/prices.js';
import { readCatalogLines } from './catalog-lines.js';
import { checkShape, ShapeError } from '../contracts/shape.js';
import { SHAPES } from '../contracts/shapes.js';
import type { Policy } from '../contracts/config.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { existingPrivateDir } from '../io/files.js';
import { childPath, paths, type Env } from '../io/paths.js';
import { readTextCapped, TooLarge } from '../io/read-capped.js';

const SNAPSHOT_FILE = 'prices-snapshot.json';
export const SNAPSHOT_RELATIVE = childPath('data', SNAPSHOT_FILE); // join's result, without compiling join at module load
/** A refreshed catalog is a few hundred KB; anything far larger is not ours. */
export const MAX_CATALOG_BYTES = 8 * 1024 * 1024;
export const CACHE_SUFFIX = '.catalog.json';

let bundledCache: { path: string; catalog: Catalog | null } | null = null;

/** This module's directory: `__dirname` in the CommonJS hook bundles (no URL round trip per hook), else from the URL. */
const moduleDir = (): string => (typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url)));

/**
 * The package root holding data/: src/prices/load.ts runs from <root>/src/prices under tsx, and from <root>/dist
 * once bundled, so walk up from this module until the snapshot is found.
 */
export function findSnapshotPath(start = moduleDir()): string | null {
  let dir = start;
  for (let i = 0; i < 5; i++) {
    const candidate = childPath(childPath(dir, 'data'), SNAPSHOT_FILE);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

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
 * and checked by the build (snapshot.test.ts), so only its envelope is checked here: full zod validation of ~450 rows
 * would cost every hook a few milliseconds.
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
export { overridesCatalog } from './overrides.js';
import { overridesCatalog } from './overrides.js';
import { loadDeclaredCatalog } from './declared.js';
import { isRecord } from '../contracts/record.js';

/**
 * A refreshed catalog's row, checked when first looked up (the refresh job validated the whole file before writing
 * it; this guards against a damaged file). A bad row is absent from that layer: an older layer prices the model.
 */
function isPriceRow(row: unknown, path: string, env: Env): boolean {
  try {
    checkShape(SHAPES.priceRow, row);
    return true;
  } catch (err) {
    diagnose('warn', 'prices:load', `cached catalog row invalid, ignored: ${errorText(err)}`, { path }, env);
    return false;
  }
}

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
    const path = childPath(dir, name);
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
  try {
    return checkShape<Catalog>(SHAPES.catalog, JSON.parse(text));
  } catch (err) {
    if (!(err instanceof ShapeError)) throw err;
    diagnose('warn', 'prices:load', 'cached catalog invalid, skipped', { path, issue: err.message }, env);
    return null;
  }
}

/** Best first: policy overrides, refreshed catalogs, the bundled snapshot, then prices the harnesses declared (declared.ts). */
export function loadCatalogLayers(env: Env, policy: Pick<Policy, 'priceOverrides'>): Catalog[] {
  const layers: Catalog[] = [];
  const overrides = overridesCatalog(policy.priceOverrides);
  if (overrides) layers.push(overrides);
  layers.push(...loadCachedCatalogs(env));
  const bundled = loadBundledCatalog(env);
  if (bundled) layers.push(bundled);
  const declared = loadDeclaredCatalog(env);
  if (declared) layers.push(declared);
  return layers;
}

/** Tests only: forget the per-process snapshot. */
export function resetBundledCatalogCache(): void {
  bundledCache = null;
}
