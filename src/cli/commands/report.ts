/** `tiergate report`: per-subagent cost and outcome, grouped; terminal table, --json, --csv or an --html page. */
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { HARNESS_IDS, HarnessSchema } from '../../contracts/harness.js';
import type { ReportBy } from '../../contracts/report.js';
import { loadPricer } from '../../observer/default-pricer.js';
import { runObserver } from '../../collect/drain.js';
import { openLedger } from '../../observer/ledger/open.js';
import type { SqlDriver } from '../../observer/ledger/driver.js';
import { buildReport, ledgerIsEmpty, type LocalReportBy, type ReportQuery } from '../../report/query.js';
import { limitRows } from '../../report/limit.js';
import { formatCsv } from '../../report/format-csv.js';
import { queryRuns, type RunRow } from '../../report/run-rows.js';
import { formatJson } from '../../report/format-json.js';
import { formatTable } from '../../report/format-table.js';
import { formatHtml } from '../../report/format-html.js';
import { buildHtmlData } from '../../report/html/data.js';
import { resolveProject, resolveSession } from '../../report/resolve-filter.js';
import { canonicalZone, localZone } from '../../report/zone.js';
import { parseCommandFlags, usageError, UserError, wholeNumber } from '../args.js';
import { unknownValue } from '../suggest.js';
import { TABLE_LIMIT, writeHtml } from '../report-output.js';
import { terminal } from '../terminal.js';
import { reportBudgetText, withBudget } from '../../report/budget-lines.js';
import { parseTime, TIME_HELP } from '../time.js';

const BY: readonly LocalReportBy[] = ['agent', 'session', 'tier', 'model', 'harness', 'day'];
/** --team adds the person the rows were pushed as. */
const TEAM_BY: readonly ReportBy[] = [...BY, 'user'];

export const USAGE = `Usage: tiergate report [--by agent|session|tier|model|harness|day] [--since T] [--until T] [--timezone ZONE]
                       [--harness H] [--session ID] [--project DIR] [--limit N] [--json | --csv [--total] | --html FILE] [--no-drain]
  --by         what one row is (default agent: the subagent type)
  --since, --until T
               ${TIME_HELP}
  --harness    ${HARNESS_IDS.slice(0, -1).join(', ')} or ${HARNESS_IDS.at(-1)}
  --session    a session id, or the start of one (as --by session shows it)
  --project    a project directory (and those under it), or the unique start of one the ledger knows
  --limit N    the N most expensive rows (table default ${TABLE_LIMIT}; --json/--csv all); 0 shows all; --by day
               always shows every day of the period, a day without runs as zeros
  --json       the stable schema (src/contracts/report.ts); --html FILE: a page with charts
  --csv        one line per run (its own requested -> served pair, decision, cost, saving); --total adds the totals line
  --no-drain   report the ledger as it is, without first reading what the hooks recorded since the last run
  --team       report the team's ledger in PostgreSQL (team.url; every machine's pushed rows, UTC days) instead;
               with it: --by user, --user NAME and --origin ID (one person's or one machine's rows)
Exit status: 0 the report was printed; 1 the ledger was damaged: it was set aside (kept, named on stderr), a fresh one
started, and the report printed covers only what was read since; 2 a usage error.`;

/** What the table says instead of a page of zeros when nothing was ever recorded. */
const EMPTY_LEDGER =
  'No subagent runs recorded yet: run a harness with tiergate installed, or `tiergate scan` to backfill\n';

/** A damaged ledger is set aside and a fresh one started (observer/ledger/open.ts): said here, with where it went. */
const rebuiltText = (aside: string, why: string): string =>
  `tiergate report: the ledger was damaged (${why}); it is kept at ${aside} and a fresh one was started, so this report covers only what was recorded since (\`tiergate scan\` backfills from the harnesses' transcripts)\n`;

/** With --limit, the runs of the rows kept (the totals line still covers every run, as the table's does). */
function csvRuns(runs: RunRow[], report: { rows: { group: string | null }[]; omittedRows?: number }): RunRow[] {
  if (!report.omittedRows) return runs;
  const kept = new Set(report.rows.map((r) => r.group));
  return runs.filter((r) => kept.has(r.group));
}

/**
 * Where --html writes, checked before the ledger is read: a file in a folder that exists. A missing folder is not
 * made: a typo in the path would otherwise leave the page somewhere the user never looks.
 */
function htmlTarget(name: string): string {
  const file = resolve(name);
  const folder = dirname(file);
  let folderIs: 'dir' | 'other' | 'missing' = 'missing';
  try {
    folderIs = statSync(folder).isDirectory() ? 'dir' : 'other';
  } catch {
    /* missing, or not reachable: said below */
  }
  if (folderIs !== 'dir')
    throw new UserError(
      folderIs === 'other'
        ? `--html ${name}: ${folder} is a file, not a folder: give a path in an existing folder`
        : `--html ${name}: the folder ${folder} does not exist: create it first (mkdir -p ${folder}) or give a path in an existing folder`,
    );
  let dir = false;
  try {
    dir = statSync(file).isDirectory();
  } catch {
    /* a new file */
  }
  if (dir)
    throw new UserError(
      `--html ${name} is a directory: give a file name, e.g. --html ${join(name, 'tiergate-report.html')}`,
    );
  return file;
}

/** Errors a user fixes by choosing another path: one line, no diagnostic. */

/** --session/--project as typed -> the ids and directories the query filters on, or the problem. */
function resolveFilters(
  db: SqlDriver,
  session: string | undefined,
  project: string | undefined,
): { session: string | null; project: string | null } {
  const s = session === undefined ? null : resolveSession(db, session);
  if (s && 'problem' in s) throw new UserError(s.problem);
  const p = project === undefined ? null : resolveProject(db, project, process.cwd());
  if (p && 'problem' in p) throw new UserError(p.problem);
  return { session: s?.value ?? null, project: p?.value ?? null };
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('report', USAGE, argv, {
    by: { type: 'string', default: 'agent' },
    since: { type: 'string' },
    until: { type: 'string' },
    timezone: { type: 'string' },
    harness: { type: 'string' },
    session: { type: 'string' },
    project: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    csv: { type: 'boolean' },
    total: { type: 'boolean' },
    html: { type: 'string' },
    'no-drain': { type: 'boolean' },
    team: { type: 'boolean' },
    user: { type: 'string' },
    origin: { type: 'string' },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  const by = (values.team ? TEAM_BY : BY).find((b) => b === values.by);
  const harness = values.harness === undefined ? null : HarnessSchema.safeParse(values.harness);
  const limit = values.limit === undefined ? null : wholeNumber(values.limit);
  const zone = values.timezone === undefined ? localZone() : canonicalZone(values.timezone);
  const problem =
    values.by === 'user' && !values.team
      ? '--by user groups the team ledger only (report --team)'
      : !values.team && (values.user !== undefined || values.origin !== undefined)
        ? '--user and --origin filter the team ledger only (report --team)'
        : !by
          ? unknownValue('--by', String(values.by), BY)
          : harness && !harness.success
            ? unknownValue('--harness', String(values.harness), HarnessSchema.options)
            : zone === null
              ? `unknown --timezone '${values.timezone}': give an IANA name such as UTC, Europe/Berlin or America/New_York`
              : limit === undefined
                ? `--limit takes a whole number, 0 or more (got '${values.limit}')`
                : [values.json, values.csv, values.html !== undefined].filter(Boolean).length > 1
                  ? 'give at most one of --json, --csv, --html'
                  : values.html === ''
                    ? '--html needs a file name'
                    : null;
  if (problem !== null || !by || zone === null) return usageError('report', problem ?? '');
  const now = Date.now();
  const since = values.since ? parseTime(values.since, now, zone, 'since') : null;
  const until = values.until ? parseTime(values.until, now, zone, 'until') : null;
  if (since === undefined)
    return usageError(
      'report',
      `cannot read --since '${values.since}' (a day like 2026-03-01, a time like 2026-03-01T14:00, or 7d)`,
    );
  if (until === undefined)
    return usageError(
      'report',
      `cannot read --until '${values.until}' (a day like 2026-03-31, a time like 2026-03-31T18:00, or 1d)`,
    );
  if (since !== null && until !== null && since >= until)
    return usageError('report', `--since ${values.since} is not before --until ${values.until}`);
  const html = values.html === undefined ? null : htmlTarget(values.html);
  if (values.team) {
    const { runTeamReport } = await import('../team-report.js');
    return runTeamReport(
      {
        by,
        since,
        until,
        harness: harness?.success ? harness.data : null,
        session: values.session ?? null,
        project: values.project ?? null,
        user: values.user ?? null,
        origin: values.origin ?? null,
      },
      {
        json: values.json ?? false,
        csv: values.csv ?? false,
        html,
        limit: limit ?? null,
        total: values.total === true,
      },
    );
  }
  if (by === 'user') return usageError('report', '--by user groups the team ledger only (report --team)');
  let rebuilt = false;
  const db = openLedger(process.env, {
    onRebuilt: (aside, why) => {
      rebuilt = true;
      process.stderr.write(rebuiltText(aside, why));
    },
  });
  const status = () => (rebuilt ? 1 : 0);
  try {
    const pricer = loadPricer(process.env);
    if (!values['no-drain']) runObserver(process.env, pricer, db);
    const query: ReportQuery = {
      by,
      since,
      until,
      harness: harness?.success ? harness.data : null,
      timeZone: zone,
      ...resolveFilters(db, values.session, values.project),
    };
    if (html !== null) {
      writeHtml(html, formatHtml(withBudget(buildHtmlData(db, query, new Date(), pricer), process.env, process.cwd())));
      process.stdout.write(`tiergate report: wrote ${html}\n`);
      return status();
    }
    const full = buildReport(db, query, new Date(), pricer);
    const table = !values.json && !values.csv;
    if (table && ledgerIsEmpty(db)) {
      // The budgets still show: the spend summary may count children the ledger has not drained yet.
      process.stdout.write(EMPTY_LEDGER + reportBudgetText(process.env, process.cwd()));
      return status();
    }
    const report =
      limit !== null && limit !== undefined ? limitRows(full, limit) : table ? limitRows(full, TABLE_LIMIT) : full;
    process.stdout.write(
      values.json
        ? formatJson(report)
        : values.csv
          ? formatCsv(full, csvRuns(queryRuns(db, query, pricer), report), { total: values.total === true })
          : formatTable(report, terminal()),
    );
    if (table) process.stdout.write(reportBudgetText(process.env, process.cwd()));
    return status();
  } finally {
    db.close();
  }
}
