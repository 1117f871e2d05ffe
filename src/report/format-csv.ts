/**
 * CSV for `tiergate report --csv` (RFC 4180; numbers exact; money as decimal USD strings): one line per run (issue 29),
 * each with its own requested -> served pair, from the same scope and time basis as the table (run-rows.ts), and with
 * `--total` a last line of the report's totals (the table's total row).
 */
import type { Report } from '../contracts/report.js';
import { csvText, plain } from './plain-text.js';
import type { RunRow } from './run-rows.js';

export const CSV_COLUMNS = [
  'group',
  'harness',
  'session',
  'agent',
  'requested_model',
  'served_model',
  'corrected_to',
  'decision',
  'join_method',
  'enforcement',
  'status',
  'at',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'total_tokens',
  'cost_usd',
  'vs_parent_usd',
  'saved_usd',
  'saved_basis',
] as const;

function cell(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A ledger string (group, model names): no control characters, and never read as a formula (plain-text.ts). */
const text = (s: string | null | undefined): string | null => (s == null ? null : csvText(plain(s)));

function line(r: RunRow): string {
  const t = r.tokens;
  return [
    text(r.group),
    text(r.harness),
    text(r.session),
    text(r.agent),
    text(r.requested),
    text(r.served),
    text(r.correctedTo),
    r.decision,
    r.joinMethod,
    r.enforcement,
    r.status,
    r.at,
    t.input,
    t.output,
    t.cacheRead,
    t.cacheWrite,
    t.input + t.output + t.cacheRead + t.cacheWrite,
    r.cost.usd,
    r.vsParent.usd,
    r.saved.usd,
    r.savedBasis,
  ]
    .map(cell)
    .join(',');
}

/** Asks whose child never ran (not approved, or not yet): the CSV's `asked` lines. */
const askedOnly = (t: Report['totals']): number => (t.asked ?? 0) - (t.askedRan ?? 0);

/** The report's totals under the same columns: runs in `status`, the table's figures for tokens, cost and saving. */
function totalLine(report: Report): string {
  const t = report.totals;
  return [
    'total',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    t.correctionsNotHonoured ? `${t.correctionsNotHonoured} ignored` : null,
    // A stopped child's line (status stopped) and an ask no child followed (status asked) are no runs: their counts
    // stand beside the runs, not in them.
    `${t.runs} runs${t.stopped ? `, ${t.stopped} stopped` : ''}${askedOnly(t) ? `, ${askedOnly(t)} asked` : ''}`,
    null,
    t.tokens.input,
    t.tokens.output,
    t.tokens.cacheRead,
    t.tokens.cacheWrite,
    t.tokens.total,
    t.cost.usd,
    t.savings.usd,
    t.saved.usd,
    t.savedEstimatedRuns ? 'estimated in part' : null,
  ]
    .map(cell)
    .join(',');
}

export function formatCsv(report: Report, runs: readonly RunRow[], opts: { total?: boolean } = {}): string {
  const lines = [CSV_COLUMNS.join(','), ...runs.map(line), ...(opts.total ? [totalLine(report)] : [])];
  return `${lines.join('\r\n')}\r\n`;
}
