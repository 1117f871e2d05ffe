/**
 * The period and filters a report covers, as a person reads them: `2026-03-01 – 2026-03-31 (Europe/Berlin)` rather
 * than two ISO instants with an exclusive end. Shared by the terminal table and the HTML page.
 */
import type { ReportFilters } from '../contracts/report.js';
import { dayIn, isMidnightIn, wallTimeIn } from './zone.js';

export function periodText(f: ReportFilters): string {
  const zone = f.timeZone ?? 'UTC';
  const at = (ms: number) => (isMidnightIn(zone, ms) ? dayIn(zone, ms) : wallTimeIn(zone, ms));
  const since = f.since ? at(Date.parse(f.since)) : null;
  // `until` is the first instant not counted: show the last one that is (the day before a midnight).
  const untilMs = f.until ? Date.parse(f.until) : null;
  const until =
    untilMs === null ? null : isMidnightIn(zone, untilMs) ? dayIn(zone, untilMs - 1) : wallTimeIn(zone, untilMs - 1);
  const period =
    since && until
      ? since === until
        ? since
        : `${since} – ${until}`
      : since
        ? `since ${since}`
        : until
          ? `through ${until}`
          : 'all recorded time';
  return `${period} (${zone})`;
}

/** The other filters, comma-separated; empty when none. */
export function filterText(f: ReportFilters): string {
  return [
    f.harness && `harness ${f.harness}`,
    f.session && `session ${f.session}`,
    f.project && `project ${f.project}`,
    f.user && `user ${f.user}`,
    f.origin && `origin ${f.origin}`,
  ]
    .filter(Boolean)
    .join(', ');
}
