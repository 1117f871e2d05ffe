/** `tiergate report`: per-subagent cost and outcome, grouped; terminal table, --json, --csv or an --html page. */
import { resolve } from 'node:path';
import { HarnessSchema } from '../../contracts/harness.js';
import { ReportBySchema } from '../../contracts/report.js';
import { loadPricer } from '../../observer/default-pricer.js';
import { runObserver } from '../../observer/drain.js';
import { openLedger } from '../../observer/ledger/open.js';
import { buildReport } from '../../report/query.js';
import { limitRows } from '../../report/limit.js';
import { formatCsv } from '../../report/format-csv.js';
import { formatJson } from '../../report/format-json.js';
import { formatTable } from '../../report/format-table.js';
import { formatHtml } from '../../report/format-html.js';
import { buildHtmlData } from '../../report/html/data.js';
import { writeFileAtomic } from '../../io/files.js';
import { parseCommandFlags, usageError, wholeNumber } from '../args.js';
import { parseTime } from '../time.js';

/** A terminal table past this many groups is unreadable; --json/--csv keep every group unless --limit is given. */
export const TABLE_LIMIT = 50;

export const USAGE = `Usage: tiergate report [--by session|agent|tier|model|harness|day] [--since T] [--until T]
                       [--harness H] [--session ID] [--project DIR] [--json | --csv | --html FILE] [--limit N] [--no-drain]
  T: YYYY-MM-DD, an ISO timestamp, or a relative 7d / 12h / 30m.
  --limit N: the N most expensive groups (table default ${TABLE_LIMIT}; --json/--csv all); 0 shows all.`;


export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('report', USAGE, argv, {
    by: { type: 'string', default: 'agent' }, since: { type: 'string' }, until: { type: 'string' },
    harness: { type: 'string' }, session: { type: 'string' }, project: { type: 'string' },
    limit: { type: 'string' }, json: { type: 'boolean' }, csv: { type: 'boolean' }, html: { type: 'string' }, 'no-drain': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  if (values.help) return process.stdout.write(`${USAGE}\n`), 0;
  const by = ReportBySchema.safeParse(values.by);
  if (by.success && by.data === 'user') return usageError('report', USAGE, '--by user groups the team ledger only (report --team)');
  const harness = values.harness === undefined ? null : HarnessSchema.safeParse(values.harness);
  const limit = values.limit === undefined ? null : wholeNumber(values.limit);
  const problem = !by.success ? `unknown --by '${values.by}'`
    : harness && !harness.success ? `unknown --harness '${values.harness}'`
    : limit === undefined ? `--limit takes a whole number, 0 or more (got '${values.limit}')`
    : [values.json, values.csv, values.html !== undefined].filter(Boolean).length > 1 ? 'give at most one of --json, --csv, --html'
    : values.html === '' ? '--html needs a file name'
    : null;
  if (problem !== null || !by.success || by.data === 'user') return usageError('report', USAGE, problem ?? '');
  const now = Date.now();
  const since = values.since ? parseTime(values.since, now) : null;
  const until = values.until ? parseTime(values.until, now) : null;
  if (since === undefined) return usageError('report', USAGE, `cannot read --since '${values.since}'`);
  if (until === undefined) return usageError('report', USAGE, `cannot read --until '${values.until}'`);
  const db = openLedger(process.env);
  try {
    if (!values['no-drain']) runObserver(process.env, loadPricer(process.env), db);
    const query = {
      by: by.data, since, until, harness: harness?.success ? harness.data : null, session: values.session ?? null,
      project: values.project ?? null,
    };
    if (values.html !== undefined) {
      const file = resolve(values.html);
      writeFileAtomic(file, formatHtml(buildHtmlData(db, query)));
      process.stdout.write(`tiergate report: wrote ${file}\n`);
      return 0;
    }
    const full = buildReport(db, query);
    const table = !values.json && !values.csv;
    const report = limit !== null && limit !== undefined ? limitRows(full, limit) : table ? limitRows(full, TABLE_LIMIT) : full;
    process.stdout.write(values.json ? formatJson(report) : values.csv ? formatCsv(report) : formatTable(report));
    return 0;
  } finally {
    db.close();
  }
}
