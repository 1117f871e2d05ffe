/**
 * Everything the HTML page shows, as `tiergate report --json` reports: the page runs no query of its own. Each piece
 * is a `buildReport` call with the user's filters (per-day pieces narrow --since/--until to that day in the report's time zone), so every
 * number on the page is one `tiergate report --json --by … [--since … --until …]` would print. One read transaction:
 * a drain writing meanwhile cannot make the pieces disagree with each other.
 */
import type { Report } from '../../contracts/report.js';
import type { SqlDriver } from '../../observer/ledger/driver.js';
import type { Pricer } from '../../observer/pricing.js';
import { buildReport, emptyRow, type ReportQuery } from '../query.js';
import { startOfDay, startOfNextDay } from '../zone.js';

/** The daily charts show at most this many days (the most recent ones); totals always cover the whole range. */
export const MAX_CHART_DAYS = 120;

export type HtmlReportData = {
  /** Exactly `tiergate report --json` with the same flags: the table and the totals. */
  main: Report;
  byTier: Report;
  byModel: Report;
  byDay: Report;
  /** Per day in the report's time zone (oldest first, at most MAX_CHART_DAYS), the same filters grouped by tier. */
  dayTier: { day: string; report: Report }[];
  /** Days with runs that the daily charts leave out (older than the last MAX_CHART_DAYS). */
  omittedDays: number;
  /** The daily spend budget, drawn as a line on the cost chart (report/budget-lines.ts htmlBudget); absent: none set. */
  budget?: { dayUsd: number };
};

export function buildHtmlData(
  db: SqlDriver,
  q: ReportQuery,
  now = new Date(),
  pricer: Pricer | null = null,
): HtmlReportData {
  return db.transaction(() => {
    // Only the main report says what the whole usage was; the other pieces would each read the requests table again.
    const build = (query: ReportQuery) => buildReport(db, query, now, pricer, { wholeUsage: false });
    const main = buildReport(db, q, now, pricer);
    const byTier = q.by === 'tier' ? main : build({ ...q, by: 'tier' });
    const byModel = q.by === 'model' ? main : build({ ...q, by: 'model' });
    const byDay = q.by === 'day' ? main : build({ ...q, by: 'day' });
    const zone = q.timeZone ?? 'UTC';
    const days = byDay.rows
      .map((r) => r.group)
      .filter((g): g is string => g !== null && /^\d{4}-\d{2}-\d{2}$/.test(g))
      .sort();
    const shown = days.slice(-MAX_CHART_DAYS);
    const ran = new Set(byDay.rows.filter((r) => r.runs > 0).map((r) => r.group));
    const dayTier = shown.map((day) => {
      // A day without runs (day-fill.ts) has no tiers: no queries for it.
      if (!ran.has(day)) return { day, report: { ...byDay, rows: [], totals: emptyRow('(total)') } };
      const start = startOfDay(zone, day)!;
      const end = startOfNextDay(zone, start);
      const since = Math.max(start, q.since ?? start);
      const until = Math.min(end, q.until ?? end);
      return { day, report: build({ ...q, by: 'tier', since, until }) };
    });
    return { main, byTier, byModel, byDay, dayTier, omittedDays: days.length - shown.length };
  });
}
