/**
 * `--limit N`: keep the N most expensive groups (not days: `--by day` shows every day of the period) (cost, then runs), in the view's own order. Thousands of sessions make
 * a terminal table nobody reads (and cli-table3 takes seconds to lay out); totals still cover every group.
 */
import type { Report, ReportRow } from '../contracts/report.js';

const pico = (r: ReportRow): bigint => (r.cost.pico === null ? -1n : BigInt(r.cost.pico));

export function limitRows(report: Report, limit: number): Report {
  // A timeline keeps every period: dropping the cheap days would leave holes in it.
  if (report.by === 'day' || limit <= 0 || report.rows.length <= limit) return { ...report, omittedRows: 0 };
  const dearest = report.rows
    .map((r, i) => ({ i, cost: pico(r), runs: r.runs }))
    .sort((a, b) => (a.cost === b.cost ? b.runs - a.runs || a.i - b.i : a.cost > b.cost ? -1 : 1))
    .slice(0, limit);
  const keep = new Set(dearest.map((d) => d.i));
  return { ...report, rows: report.rows.filter((_, i) => keep.has(i)), omittedRows: report.rows.length - limit };
}
