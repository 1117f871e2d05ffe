/** Terminal table for `tiergate report`. */
import Table from 'cli-table3';
import type { Report } from '../contracts/report.js';
import { costCell, modelsCell, tokensCell, usd } from './cells.js';
import { plain } from './plain-text.js';

export function formatTable(report: Report): string {
  const head = [report.by, 'dispatches', 'completed', 'verified', 'requested -> served', 'tokens', 'cost', 'on parent', 'savings'];
  const table = new Table({ head, style: { head: [], border: [] }, wordWrap: true });
  for (const r of [...report.rows, report.totals]) {
    table.push([
      r.group ?? '(none)',
      String(r.dispatches),
      r.pending > 0 ? `${r.completed} (+${r.pending} pending)` : String(r.completed),
      String(r.verified),
      modelsCell(r),
      tokensCell(r),
      costCell(r),
      usd(r.counterfactual) ?? '-',
      usd(r.savings) ?? '-',
    ].map(plain));
  }
  const f = report.filters;
  const scope = [f.since && `since ${f.since}`, f.until && `until ${f.until}`, f.harness && `harness ${f.harness}`,
    f.session && `session ${f.session}`, f.project && `project ${f.project}`, f.user && `user ${f.user}`,
    f.origin && `origin ${f.origin}`].filter(Boolean).map((s) => plain(String(s))).join(', ');
  const team = report.source === 'team' ? 'team ledger (PostgreSQL): every pushed machine\'s rows.\n' : '';
  const more = report.omittedRows ? `${report.omittedRows.toLocaleString('en-US')} more ${report.by} rows not shown (the most expensive are; --limit 0 shows all); the total covers them.\n` : '';
  const note = 'on parent / savings: the same usage priced at the parent\'s model, over runs where both are priced.';
  return `${table.toString()}\n${more}${team}${scope ? `${scope}\n` : ''}${notHonoured(report)}${note}\n`;
}

/** Only when there are some: a line, not a column that is 0 on every row of nearly every report. */
function notHonoured(report: Report): string {
  const n = report.totals.correctionsNotHonoured;
  if (n === 0) return '';
  const where = report.rows.filter((r) => r.correctionsNotHonoured > 0).map((r) => `${plain(r.group ?? '(none)')} ${r.correctionsNotHonoured}`);
  return `corrections not honoured: ${n}${where.length ? ` (${where.join(', ')})` : ''}: the harness ran another model than tiergate set; see tiergate doctor.\n`;
}
