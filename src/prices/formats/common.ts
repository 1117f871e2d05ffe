/** What every source-format converter shares: the result shape, skip counting and de-duplication by canonical id. */
import { PriceRowSchema, type PriceRow, type Rates } from '../../contracts/prices.js';
import { compareDecimal } from '../decimal.js';
import { normaliseName } from '../normalise.js';

export interface ConvertResult {
  rows: PriceRow[];
  /** Input entries that produced no row (invalid, zero-priced, floating alias routes, …). */
  skipped: number;
  /** One line per skip reason with its count, plus anything else worth telling the user. */
  notes: string[];
}

export interface ConvertOptions {
  /** Written into every row's `source` (e.g. `litellm-2026-09`, `refresh-openrouter-2026-12-02T10:00Z`). */
  source: string;
}

interface Candidate {
  key: string;
  row: PriceRow;
  /** Lower wins when two entries name the same canonical id. */
  rank: number;
  /** The entry's own name needed no normalising (not a dated snapshot or a regional route). */
  direct: boolean;
}

/** Two rate sets that disagree on a rate both give (a missing cache price is less data, not another price). */
export function ratesConflict(a: Rates, b: Rates): boolean {
  const differ = (x: string | null, y: string | null) => x !== null && y !== null && compareDecimal(x, y) !== 0;
  return (
    differ(a.input, b.input) ||
    differ(a.output, b.output) ||
    differ(a.cacheRead, b.cacheRead) ||
    differ(a.cacheWrite5m, b.cacheWrite5m) ||
    differ(a.cacheWrite1h, b.cacheWrite1h)
  );
}

export function sameRates(a: Rates, b: Rates): boolean {
  const eq = (x: string | null, y: string | null) => (x === null || y === null ? x === y : compareDecimal(x, y) === 0);
  return (
    eq(a.input, b.input) &&
    eq(a.output, b.output) &&
    eq(a.cacheRead, b.cacheRead) &&
    eq(a.cacheWrite5m, b.cacheWrite5m) &&
    eq(a.cacheWrite1h, b.cacheWrite1h)
  );
}

/**
 * Collects rows keyed by canonical id. When several source entries name one id (dated snapshots, Bedrock regions,
 * Azure deployments), the best-ranked undated entry wins; an entry whose rates differ from the winner's is kept
 * too, under its own undecorated name (`gpt-4o-2024-05-13`, `us.anthropic.claude-opus-5`), so asking for exactly
 * that name still gets exactly its price.
 */
export class RowCollector {
  private readonly byId = new Map<string, Candidate[]>();
  private readonly skips = new Map<string, number>();
  private readonly extraNotes: string[] = [];

  skip(reason: string): void {
    this.skips.set(reason, (this.skips.get(reason) ?? 0) + 1);
  }

  note(text: string): void {
    this.extraNotes.push(text);
  }

  /** `rawName` is the entry's name in the source; `row.id` is overwritten with its canonical id. */
  add(rawName: string, row: Omit<PriceRow, 'id'>, rank = 0): void {
    const { id } = normaliseName(rawName);
    if (!id) return this.skip('empty id');
    const lower = rawName.trim().toLowerCase();
    const key = lower.slice(lower.lastIndexOf('/') + 1);
    const full: PriceRow = { id, ...row };
    const parsed = PriceRowSchema.safeParse(full);
    if (!parsed.success) return this.skip('invalid row');
    const list = this.byId.get(id) ?? [];
    list.push({ key, row: parsed.data, rank, direct: key === id });
    this.byId.set(id, list);
  }

  result(): ConvertResult {
    const rows: PriceRow[] = [];
    for (const list of this.byId.values()) {
      const sorted = [...list].sort((a, b) => a.rank - b.rank || Number(b.direct) - Number(a.direct));
      const winner = sorted[0]!;
      rows.push(winner.row);
      const keptKeys = new Set([winner.row.id]);
      for (const c of sorted.slice(1)) {
        // Route variants (`:batch`) are service tiers, not names a harness dispatches to.
        if (keptKeys.has(c.key) || /:[a-z]/.test(c.key) || !ratesConflict(c.row.rates, winner.row.rates)) continue;
        keptKeys.add(c.key);
        rows.push({ ...c.row, id: c.key });
      }
    }
    const skipped = [...this.skips.values()].reduce((a, b) => a + b, 0);
    const notes = [...[...this.skips].map(([reason, n]) => `skipped ${n}: ${reason}`), ...this.extraNotes];
    return { rows, skipped, notes };
  }
}

/** A zero input and output price is a placeholder or a free coding plan, not a list price: never price at $0. */
export function isZeroPriced(rates: Pick<Rates, 'input' | 'output'>): boolean {
  return compareDecimal(rates.input, '0') === 0 && compareDecimal(rates.output, '0') === 0;
}
