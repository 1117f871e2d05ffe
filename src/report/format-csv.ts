/** CSV for `tiergate report --csv` (RFC 4180; numbers exact; money as decimal USD strings). */
import type { Report, ReportRow } from '../contracts/report.js';
import { csvText, plain } from './plain-text.js';

export const CSV_COLUMNS = [
  'group',
  'runs',
  'dispatches',
  'denied',
  'completed',
  'pending',
  'verified',
  'requested_model',
  'served_model',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'total_tokens',
  'cost_usd',
  'unpriced_runs',
  'no_usage_runs',
  'counterfactual_usd',
  'savings_usd',
  'comparable_runs',
  'usage_not_reported',
  'corrections_not_honoured',
  // Issue 21, appended so the older columns keep their places: every model pair, what the corrections saved, sessions.
  'model_pairs',
  'corrected',
  'saved_usd',
  'saved_runs',
  'project',
  'last_activity',
] as const;

function cell(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A ledger string (group, model names): no control characters, and never read as a formula (plain-text.ts). */
const text = (s: string | null | undefined): string | null => (s == null ? null : csvText(plain(s)));

/** Every requested -> served pair with its runs, most frequent first: `opus -> claude-sonnet-4-5 x3; claude-haiku-4-5 x2`. */
function pairs(r: ReportRow): string {
  return r.models
    .map(
      (m) =>
        `${m.requested === null || m.requested === m.served ? (m.served ?? '?') : `${m.requested} -> ${m.served ?? '?'}`} x${m.runs}`,
    )
    .join('; ');
}

function line(r: ReportRow): string {
  const top = r.models[0];
  return [
    text(r.group),
    r.runs,
    r.dispatches,
    r.denied,
    r.completed,
    r.pending,
    r.verified,
    text(top?.requested),
    text(top?.served),
    r.tokens.input,
    r.tokens.output,
    r.tokens.cacheRead,
    r.tokens.cacheWrite,
    r.tokens.total,
    r.cost.usd,
    r.unpricedRuns,
    r.noUsageRuns,
    r.counterfactual.usd,
    r.savings.usd,
    r.comparableRuns,
    r.usageNotReported,
    r.correctionsNotHonoured,
    text(pairs(r) || null),
    r.corrected,
    r.saved.usd,
    r.savedRuns,
    text(r.project),
    r.lastActivity ?? null,
  ]
    .map(cell)
    .join(',');
}

export function formatCsv(report: Report): string {
  return `${[CSV_COLUMNS.join(','), ...report.rows.map(line), line(report.totals)].join('\r\n')}\r\n`;
}
