/**
 * Merging converted sources into one Catalog. Sources are given best first; the first that prices an id keeps the
 * row (rates and window from one source). The one exception is long-context tiers, see `authoritativeTiers`.
 */
import type { Catalog, PriceRow } from '../contracts/prices.js';
import { sameRates } from './formats/common.js';

export interface SourceRows {
  name: string;
  rows: PriceRow[];
  /**
   * The source's silence about long context is itself a statement (Claude Code's catalog bills Sonnet 4.5 flat).
   * Otherwise a row without tiers adopts the tiers of a lower source that has the same base rates: this LiteLLM
   * snapshot has no 272k fields at all, so its gpt-6-astra-pro would lose the tier OpenRouter knows.
   */
  authoritativeTiers?: boolean;
}

export interface MergeReport {
  /** source name -> rows it contributed. */
  contributed: Record<string, number>;
  /** source name -> rows it had that a better source already priced. */
  shadowed: Record<string, number>;
}

export function mergeSources(sources: SourceRows[]): { models: Record<string, PriceRow>; report: MergeReport } {
  const models: Record<string, PriceRow> = {};
  const tiersFixed = new Set<string>();
  const report: MergeReport = { contributed: {}, shadowed: {} };
  for (const s of sources) {
    report.contributed[s.name] = 0;
    report.shadowed[s.name] = 0;
    for (const row of s.rows) {
      const held = models[row.id];
      if (held) {
        report.shadowed[s.name]!++;
        if (
          !tiersFixed.has(row.id) &&
          held.longContext.length === 0 &&
          row.longContext.length > 0 &&
          sameRates(held.rates, row.rates)
        ) {
          models[row.id] = { ...held, longContext: row.longContext };
          tiersFixed.add(row.id);
        }
      } else {
        models[row.id] = row;
        report.contributed[s.name]!++;
        if (s.authoritativeTiers || row.longContext.length > 0) tiersFixed.add(row.id);
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
  // The envelope is everything but the two tables (a refreshed catalog also carries fetchedAt), on the first line.
  const { models: _m, aliases: _a, ...envelope } = c;
  void _m;
  void _a;
  const head = JSON.stringify(envelope);
  const models = Object.entries(c.models).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const aliases = Object.entries(c.aliases).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `${head.slice(0, -1)},\n"models":{\n${models.join(',\n')}\n},\n"aliases":{\n${aliases.join(',\n')}\n}}\n`;
}
