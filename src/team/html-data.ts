/**
 * The HTML page's data for `report --team --html`: the same pieces as the local page (report/html/data.ts), each a team
 * report with the user's filters, all read in one snapshot of the team database.
 */
import type { HtmlReportData } from '../report/html/data.js';
import { MAX_CHART_DAYS } from '../report/html/data.js';
import type { TeamClient } from './pg.js';
import { teamReport, type TeamReportQuery } from './report.js';

const DAY_MS = 86_400_000;

export async function buildTeamHtmlData(db: TeamClient, q: TeamReportQuery, now = new Date()): Promise<HtmlReportData> {
  return db.transaction(
    async () => {
      const report = (query: TeamReportQuery) => teamReport(db, query, now);
      const main = await report(q);
      const byTier = q.by === 'tier' ? main : await report({ ...q, by: 'tier' });
      const byModel = q.by === 'model' ? main : await report({ ...q, by: 'model' });
      const byDay = q.by === 'day' ? main : await report({ ...q, by: 'day' });
      const days = byDay.rows
        .map((r) => r.group)
        .filter((g): g is string => g !== null && /^\d{4}-\d{2}-\d{2}$/.test(g))
        .sort();
      const shown = days.slice(-MAX_CHART_DAYS);
      const dayTier: HtmlReportData['dayTier'] = [];
      for (const d of shown) {
        const start = Date.parse(`${d}T00:00:00Z`);
        const since = Math.max(start, q.since ?? start);
        const until = Math.min(start + DAY_MS, q.until ?? start + DAY_MS);
        dayTier.push({ day: d, report: await report({ ...q, by: 'tier', since, until }) });
      }
      return { main, byTier, byModel, byDay, dayTier, omittedDays: days.length - shown.length };
    },
    { readOnly: true },
  );
}
