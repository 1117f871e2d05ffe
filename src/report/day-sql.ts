/**
 * `--by day` in a time zone other than UTC: the day of an epoch-ms column as SQL, one branch per daylight-saving
 * period in the range (offsets are literals computed here, never user text). The ledger's own `day` column and its
 * rollups are UTC days, so a zoned day is read from the rows themselves.
 */
import type { SqlDriver } from '../observer/ledger/driver.js';
import { offsetSegments } from './zone.js';

const dayAt = (col: string, offset: number) => `strftime('%Y-%m-%d', (${col} + ${offset}) / 1000, 'unixepoch')`;

/** The SQL for the zone's day of `col` over [from, to]; null when the zone is UTC there (the `day` column serves). */
export function zonedDaySql(col: string, zone: string, from: number, to: number): string | null {
  const segs = offsetSegments(zone, from, Math.max(from, to));
  if (segs.length === 1 && segs[0]!.offset === 0) return null;
  const last = segs[segs.length - 1]!;
  if (segs.length === 1) return dayAt(col, last.offset);
  return `CASE ${segs
    .slice(0, -1)
    .map((s) => `WHEN ${col} < ${s.until} THEN ${dayAt(col, s.offset)}`)
    .join(' ')} ELSE ${dayAt(col, last.offset)} END`;
}

/** The span the ledger's rows cover (completion ends, dispatch times), narrowed to a query's since/until. */
export function ledgerSpan(
  db: SqlDriver,
  since: number | null | undefined,
  until: number | null | undefined,
): { from: number; to: number } {
  const c = db
    .prepare('SELECT MIN(ended_at) AS a, MAX(ended_at) AS b FROM completions')
    .get<{ a: number | null; b: number | null }>();
  const d = db
    .prepare('SELECT MIN(at) AS a, MAX(at) AS b FROM dispatches')
    .get<{ a: number | null; b: number | null }>();
  const lows = [c?.a, d?.a].filter((x): x is number => typeof x === 'number');
  const highs = [c?.b, d?.b].filter((x): x is number => typeof x === 'number');
  const now = Date.now();
  const from = since ?? (lows.length ? Math.min(...lows) : now);
  const to = until ?? (highs.length ? Math.max(...highs) + 1 : now);
  return { from, to: Math.max(from, to) };
}
