/**
 * Terminal table for `tiergate report`, laid out for the terminal's width (80 and 120 columns are checked by test):
 * numbers right-aligned, money in dollars and cents, one model pair per line, and below 100 columns a compact set of
 * columns (ccusage's convention) instead of a wide table wrapping into noise. The notes under it wrap to the width.
 */
import type { Report, ReportRow } from '../contracts/report.js';
import { compactCount, costCell, modelsCell, NO_USAGE_NAMES, NO_USAGE_TEXT, requestBillingText, usd } from './cells.js';
import { filterText, periodText } from './period.js';
import { plain } from './plain-text.js';
import { renderTable, wrapText, type Column } from './terminal-table.js';
import { dayIn } from './zone.js';
import { counted, refusalTexts } from './count-text.js';

/** The cost cell of a row whose runs report no usage: "n/a (Cursor)". */
const NO_USAGE_NA = `n/a${NO_USAGE_NAMES ? ` (${NO_USAGE_NAMES})` : ''}`;

export type TableTerminal = { width: number; color: boolean };

/** Below this many columns the compact set is shown. */
export const COMPACT_BELOW = 100;
/** From this many columns on, the outcome columns (done, verified) are shown too (always in --json, --csv, --html). */
const WIDE_FROM = 140;

type Col = Column & { cell: (r: ReportRow, total: boolean) => string };

const SGR = { bold: [1, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], dim: [2, 22] } as const;

/**
 * Short session ids: 8 characters, more (up to 12) where two shown sessions share their first 8; what --session takes
 * as a prefix. --json has the whole id.
 */
function shortIds(rows: readonly ReportRow[]): Map<string, string> {
  const ids = rows.map((r) => r.group).filter((g): g is string => g !== null);
  const out = new Map<string, string>();
  for (const id of ids) {
    let n = Math.min(8, id.length);
    while (n < Math.min(12, id.length) && ids.some((o) => o !== id && o.startsWith(id.slice(0, n)))) n++;
    out.set(id, id.slice(0, n));
  }
  return out;
}

function columns(report: Report, term: TableTerminal): Col[] {
  const paint = (code: keyof typeof SGR, s: string) =>
    term.color && s ? `\u001b[${SGR[code][0]}m${s}\u001b[${SGR[code][1]}m` : s;
  const session = report.by === 'session';
  const ids = shortIds(report.rows);
  const zone = report.filters.timeZone ?? 'UTC';
  const num = (n: number) => n.toLocaleString('en-US');
  const money = (m: ReportRow['cost']) => usd(m) ?? '-';
  const signed = (m: ReportRow['cost'], good: keyof typeof SGR) => {
    const t = money(m);
    return t.startsWith('-$') || t.startsWith('-<')
      ? paint('red', t)
      : m.pico !== null && m.pico !== '0'
        ? paint(good, t)
        : t;
  };
  const cost = (r: ReportRow) => {
    if (r.usageNotReported) return NO_USAGE_NA;
    const c = costCell(r);
    return r.unpricedRuns > 0 ? paint('yellow', c.replace(' + ', '\n+')) : c;
  };
  const group: Col = {
    // A short session id is already as short as it can be and stay unique.
    head: session ? 'session' : report.by,
    min: session ? undefined : 10,
    cell: (r, total) =>
      total ? 'total' : r.group === null ? '(none)' : plain(session ? (ids.get(r.group) ?? r.group) : r.group),
  };
  const project: Col = {
    head: 'project',
    min: 10,
    truncate: true,
    cell: (r, total) => (total || !r.project ? '' : plain(r.project.split('/').filter(Boolean).at(-1) ?? r.project)),
  };
  const compact = term.width < COMPACT_BELOW;
  const last: Col = {
    head: 'last active',
    cell: (r, total) => (total || !r.lastActivity ? '' : dayIn(zone, Date.parse(r.lastActivity))),
  };
  const right = (head: string, cell: Col['cell']): Col => ({ head, align: 'right', cell });
  const runs = right('runs', (r) => num(r.runs));
  const done = right('done', (r) => num(r.completed));
  const verified = right('verified', (r) => num(r.verified));
  // What the corrections set, beside their count: the rows are grouped by what the dispatch asked for.
  const corrected: Col = { ...right('corrected', (r) => correctedCell(r, num, plain)), min: 9 };
  const denied = right('denied', (r) => num(r.denied));
  // Each pair cleaned on its own: plain() drops newlines, and the pairs are one per line.
  const models: Col = { head: 'requested → served', min: 20, cell: (r) => modelsCell(r, 3, '→', plain) };
  const tokens = right('tokens', (r) => (r.usageNotReported ? '-' : compactCount(r.tokens.total)));
  const costCol = right('cost', (r) => cost(r));
  const saved = right('saved', (r) => signed(r.saved, 'green'));
  const vsParent = right('vs parent', (r) => signed(r.savings, 'green'));
  if (compact) return session ? [group, project, last, runs, costCol, saved] : [group, runs, models, costCol, saved];
  // Sessions give room to where and when; denials and tokens are in --by agent and --json.
  if (session) return [group, project, last, runs, corrected, models, costCol, saved, vsParent];
  return term.width >= WIDE_FROM
    ? [group, runs, done, verified, corrected, denied, models, tokens, costCol, saved, vsParent]
    : [group, runs, corrected, denied, models, tokens, costCol, saved, vsParent];
}

/** "2" and, under it, what the corrections set: "→ sonnet" (two at most, then "+n more"). */
export function correctedCell(r: ReportRow, num: (n: number) => string, clean: (s: string) => string): string {
  const to = r.correctedTo ?? [];
  if (r.corrected === 0 || to.length === 0) return num(r.corrected);
  const shown = to.slice(0, 2).map((t) => `→ ${clean(t.value)}`);
  if (to.length > 2) shown.push(`+${to.length - 2} more`);
  return [num(r.corrected), ...shown].join('\n');
}

export function formatTable(report: Report, term: TableTerminal = { width: 120, color: false }): string {
  const cols = columns(report, term);
  const rows = [
    ...report.rows.map((r) => cols.map((c) => c.cell(r, false))),
    cols.map((c) => c.cell(report.totals, true)),
  ];
  const table = renderTable(cols, rows, { width: term.width, color: term.color, rowLines: true, boldLastRow: true });
  return `${table}\n${notes(report, cols, term.width)
    .map((n) => `${wrapText(n, term.width, '  ')}\n`)
    .join('')}`;
}

/** The lines under the table: what is left out, the period, the whole usage, and what the columns mean. */
function notes(report: Report, cols: readonly Col[], width: number): string[] {
  const out: string[] = [];
  const heads = new Set(cols.map((c) => c.head));
  if (report.omittedRows)
    out.push(
      `${report.omittedRows.toLocaleString('en-US')} more ${report.by} rows not shown (the most expensive are; --limit 0 shows all); the total covers them.`,
    );
  if (report.source === 'team') out.push("team ledger (PostgreSQL): every pushed machine's rows.");
  const filters = plain(filterText(report.filters));
  out.push(`period: ${periodText(report.filters)}${filters ? `; ${filters}` : ''}`);
  const whole = report.wholeUsage;
  if (whole && whole.cost.pico !== null && whole.subagentCost.pico !== null && BigInt(whole.cost.pico) > 0n) {
    const share = Number((BigInt(whole.subagentCost.pico) * 1000n) / BigInt(whole.cost.pico)) / 10;
    out.push(
      `subagents: ${usd(whole.subagentCost)} of the ${usd(whole.cost)} the scanned sessions spent (${share}%; ` +
        `${counted(whole.sessions, 'session')} read by tiergate scan${whole.unpricedRequests ? `, ${whole.unpricedRequests.toLocaleString('en-US')} requests unpriced` : ''}).`,
    );
  }
  if (report.by === 'tier' && report.rows.some((r) => r.group === null)) {
    out.push(
      '(none): runs with no tier: every run read by tiergate scan (transcripts record none) and dispatches tiergate did not route to a tier.',
    );
  }
  if (report.rows.some((r) => r.usageNotReported) || report.totals.usageNotReported)
    out.push(`${NO_USAGE_NA}: ${NO_USAGE_TEXT}.`);
  const pending = report.totals.pending;
  if (pending > 0)
    out.push(
      `${pending.toLocaleString('en-US')} ${pending === 1 ? 'run is' : 'runs are'} pending: the transcript had not flushed; the next report reads ${pending === 1 ? 'it' : 'them'}.`,
    );
  if (report.totals.multiplier) out.push(requestBillingText(report.totals.multiplier));
  const n = report.totals.correctionsNotHonoured;
  if (n > 0) {
    const where = report.rows
      .filter((r) => r.correctionsNotHonoured > 0)
      .map((r) => `${plain(r.group ?? '(none)')} ${r.correctionsNotHonoured}`);
    out.push(
      `corrections not honoured: ${n}${where.length ? ` (${where.join(', ')})` : ''}: the harness ran another model than tiergate set; see tiergate doctor.`,
    );
  }
  const t = report.totals;
  for (const line of refusalTexts(t)) out.push(`${line}.`);
  if (t.savedByBudget && t.savedByBudget.pico !== null)
    out.push(
      `budget downshifts: ${usd(t.savedByBudget)} of the saving (a spent budget moved the child to a cheaper tier).`,
    );
  if (t.savedEstimatedRuns)
    out.push(
      `estimated (dispatch not recorded): ${t.savedEstimatedRuns.toLocaleString('en-US')} of the ${t.savedRuns.toLocaleString('en-US')} saved ${t.savedRuns === 1 ? 'run' : 'runs'}, recorded before tiergate kept its decisions, priced at the model the dispatch named (else the parent's) at today's catalog.`,
    );
  const legend = [
    heads.has('saved')
      ? "saved: what tiergate's corrections saved (the child's usage priced at the model it would have run on without tiergate, at the rates its decision saw, minus what it cost)"
      : '',
    heads.has('vs parent')
      ? "vs parent: the same usage priced at the parent's model, minus what ran (over runs priced both ways)"
      : '',
  ].filter(Boolean);
  if (legend.length) out.push(`${legend.join('; ')}.`);
  if (width < COMPACT_BELOW)
    out.push(
      `Compact columns for ${width} columns; a wider terminal (or --width 120) shows corrections, denials, tokens and the parent comparison.`,
    );
  else if (width < WIDE_FROM && !heads.has('done') && report.by !== 'session')
    out.push(`done and verified runs: --width ${WIDE_FROM}, --json or --html.`);
  return out;
}
