/**
 * `--by day` shows every day of the period, a zero row for a day without runs: a timeline with holes reads as if the
 * missing days were never asked for. The period is the query's since/until (an open end stops at today, or at the
 * last recorded day when neither is given), widened to the days that have rows.
 */
import type { ReportRow } from '../contracts/report.js';
import { dayIn } from './zone.js';

const DAY_MS = 86_400_000;
/** A `--since 2000-01-01` must not print 9,000 empty days: past this many the fill starts at the first recorded day. */
export const MAX_FILLED_DAYS = 3660;

const nextDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
const daysBetween = (a: string, b: string): number =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);

export type DayRange = { since: number | null; until: number | null; zone: string; now: number };

/** Every calendar day from the first to the last of the period, in order; `zero(day)` makes a row for an empty one. */
export function fillDays(rows: readonly ReportRow[], range: DayRange, zero: (day: string) => ReportRow): ReportRow[] {
  const byDay = new Map<string, ReportRow>();
  for (const r of rows) if (r.group !== null && /^\d{4}-\d{2}-\d{2}$/.test(r.group)) byDay.set(r.group, r);
  if (byDay.size !== rows.length) return [...rows];
  const recorded = [...byDay.keys()].sort();
  const end = range.until === null ? range.now : Math.min(range.until, range.now + 1) - 1;
  const last =
    range.until !== null || range.since !== null
      ? dayIn(range.zone, Math.max(end, range.since ?? end))
      : recorded.at(-1);
  let first = range.since !== null ? dayIn(range.zone, range.since) : recorded[0];
  if (first === undefined || last === undefined) return [...rows];
  if (recorded[0] !== undefined && recorded[0] < first) first = recorded[0];
  const to = recorded.at(-1) !== undefined && recorded.at(-1)! > last ? recorded.at(-1)! : last;
  if (daysBetween(first, to) > MAX_FILLED_DAYS) first = recorded[0] ?? to;
  const out: ReportRow[] = [];
  for (let d = first; d <= to; d = nextDay(d)) out.push(byDay.get(d) ?? zero(d));
  return out;
}
