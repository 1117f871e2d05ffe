/**
 * Merging converted sources into one Catalog. Sources are given best first; the first that prices an id keeps the
 * whole row (rates, tiers and window from one source, so a row never mixes two providers' numbers).
 */
import type { Catalog, PriceRow } from '../contracts/prices.js';

export interface SourceRows {
  name: string;
  rows: PriceRow[];
}

export interface MergeReport {
  /** source name -> rows it contributed. */
  contributed: Record<string, number>;
  /** source name -> rows it had that a better source already priced. */
  shadowed: Record<string, number>;
}

export function mergeSources(sources: SourceRows[]): { models: Record<string, PriceRow>; report: MergeReport } {
  const models: Record<string, PriceRow> = {};
  const report: MergeReport = { contributed: {}, shadowed: {} };
  for (const s of sources) {
    report.contributed[s.name] = 0;
    report.shadowed[s.name] = 0;
    for (const row of s.rows) {
      if (models[row.id]) report.shadowed[s.name]!++;
      else {
        models[row.id] = row;
        report.contributed[s.name]!++;
      }
    }
  }
  return { models: sortKeys(models), report };
}

export function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Catalog JSON with one model per line: small (no indentation) yet reviewable as a diff when prices change.
 */
export function serialiseCatalog(c: Catalog): string {
  const head = JSON.stringify({ format: c.format, version: c.version, date: c.date, source: c.source });
  const models = Object.entries(c.models).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const aliases = Object.entries(c.aliases).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `${head.slice(0, -1)},\n"models":{\n${models.join(',\n')}\n},\n"aliases":{\n${aliases.join(',\n')}\n}}\n`;
}
