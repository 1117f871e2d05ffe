/**
 * `tiergate report --team`: the report over the team's PostgreSQL ledger (src/team/report.ts), printed by the same
 * formatters as the local one. Loaded only for --team, so pg never loads for a local report. A read-only role is enough.
 */
import { withoutTrailingSlashes } from '../io/text.js';
import type { Harness } from '../contracts/harness.js';
import type { ReportBy } from '../contracts/report.js';
import { formatCsv } from '../report/format-csv.js';
import { formatHtml } from '../report/format-html.js';
import { formatJson } from '../report/format-json.js';
import { formatTable } from '../report/format-table.js';
import { paths } from '../io/paths.js';
import { teamUrl } from '../team/config.js';
import { buildTeamHtmlData } from '../team/html-data.js';
import { connectTeam, TeamError } from '../team/pg.js';
import { buildTeamReport, teamRuns, type TeamReportQuery } from '../team/report.js';
import { requireTeamSchema } from '../team/schema.js';
import { UserError } from './args.js';
import { TABLE_LIMIT, writeHtml } from './report-output.js';

export type TeamReportOutput = {
  json: boolean;
  csv: boolean;
  html: string | null;
  limit: number | null;
  /** --csv --total: a last line with the report's totals. */
  total?: boolean;
};

export async function runTeamReport(
  q: {
    by: ReportBy;
    since: number | null;
    until: number | null;
    harness: Harness | null;
    session: string | null;
    project: string | null;
    user: string | null;
    origin: string | null;
  },
  out: TeamReportOutput,
): Promise<number> {
  const env = process.env;
  const where = teamUrl(env);
  for (const d of where.diagnostics) process.stderr.write(`tiergate: ${d}\n`);
  if (!where.url)
    throw new UserError(`no team ledger configured: set team.url in ${paths(env).config} (or TIERGATE_TEAM_URL)`);
  // As typed: other people's sessions and directories are not in this machine's ledger to complete a prefix from.
  const query: TeamReportQuery = {
    ...q,
    project: q.project === null ? null : withoutTrailingSlashes(q.project) || '/',
  };
  let db;
  try {
    db = await connectTeam(where.url, { env, statementTimeoutMs: 120_000 });
  } catch (err) {
    throw err instanceof TeamError ? new UserError(err.message) : err;
  }
  try {
    await requireTeamSchema(db);
    if (out.html !== null) {
      writeHtml(out.html, formatHtml(await buildTeamHtmlData(db, query)));
      process.stdout.write(`tiergate report: wrote ${out.html}\n`);
      return 0;
    }
    const table = !out.json && !out.csv;
    // The limit goes into the query: --by session then ranks and builds only the sessions it keeps (as limitRows would).
    const report = await buildTeamReport(db, { ...query, limit: out.limit ?? (table ? TABLE_LIMIT : null) });
    if (out.csv) {
      const runs = await teamRuns(db, query);
      const kept = new Set(report.rows.map((r) => r.group));
      const shown = report.omittedRows ? runs.filter((r) => kept.has(r.group)) : runs;
      process.stdout.write(formatCsv(report, shown, { total: out.total === true }));
      return 0;
    }
    process.stdout.write(out.json ? formatJson(report) : formatTable(report));
    return 0;
  } catch (err) {
    // The server's own words (permission denied, a lost connection), one line: the user's to fix, not a tiergate fault.
    throw err instanceof TeamError ? new UserError(err.message) : err;
  } finally {
    await db.end();
  }
}
