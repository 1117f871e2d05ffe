/**
 * `tiergate report --html <file>`: one self-contained page (no network: Chart.js is inlined, a CSP forbids every
 * other source) built only from the rows `--json` produces (html/data.ts). The totals and the table are rendered
 * here as escaped HTML; the charts are drawn in the page from an embedded JSON chart model. The main report is
 * embedded verbatim (`#tiergate-report`), so the page carries the very JSON its numbers come from.
 */
import { createHash } from 'node:crypto';
import type { Money, Report, ReportRow } from '../contracts/report.js';
import { costCell, NO_USAGE_NAMES, tokensCell, usd } from './cells.js';
import { refusalTexts } from './count-text.js';
import { chartLibSource } from './html/chart-lib.js';
import { chartModel } from './html/chart-model.js';
import type { HtmlReportData } from './html/data.js';
import { escapeHtml as h, jsonForScript } from './html/escape.js';
import { servedMatchesRequested } from './html/model-match.js';
import { pageScriptSource } from './html/page-script.js';
import { PAGE_CSS } from './html/styles.js';
import { filterText, periodText } from './period.js';
import { wallTimeIn } from './zone.js';

export type HtmlOptions = { chartLib?: string };

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const count = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

function moneyText(m: Money): string {
  return usd(m) ?? '-';
}

function moneySpan(m: Money, key: string): string {
  const exact = m.usd === null ? '' : m.usd.startsWith('-') ? `-$${m.usd.slice(1)}` : `$${m.usd}`;
  const attrs = `data-total="${key}" data-usd="${m.usd === null ? '' : h(m.usd)}"${exact ? ` title="${h(exact)} exactly"` : ''}`;
  return `<span ${attrs}>${h(moneyText(m))}</span>`;
}

/** A value past this many characters (a token count in the billions) gets two grid columns: never broken inside. */
const WIDE_VALUE = 10;

function card(label: string, value: string, sub = ''): string {
  const wide = value.replace(/<[^>]*>/g, '').length > WIDE_VALUE ? ' wide' : '';
  return `<div class="card${wide}"><div class="label">${h(label)}</div><div class="value">${value}</div>${sub ? `<div class="sub">${sub}</div>` : ''}</div>`;
}

/** A row's refusals beside its dispatches: "(2 denied, 1 by a limit; 1 stopped)". */
function refusalNote(r: ReportRow): string {
  const denied = r.denied
    ? `${count(r.denied)} denied${r.limitDenied ? `, ${count(r.limitDenied)} by a limit` : ''}`
    : '';
  const parts = [denied, r.stopped ? `${count(r.stopped)} stopped` : ''].filter(Boolean);
  return parts.length ? ` <span class="note">(${parts.join('; ')})</span>` : '';
}

/** Under the headline: the budget downshifts' part, the estimated runs and the denials, as the table's notes say. */
function savedNotes(t: Report['totals']): string {
  const out: string[] = [];
  if (t.savedByBudget && t.savedByBudget.pico !== null) out.push(`budget downshifts: ${h(moneyText(t.savedByBudget))}`);
  if (t.savedEstimatedRuns) out.push(`${plural(t.savedEstimatedRuns, 'run')} estimated (dispatch not recorded)`);
  for (const line of refusalTexts(t)) out.push(h(line));
  return out.map((x) => `<br>${x}`).join('');
}

/** The headline: what tiergate's corrections saved (the figure people came for), then the subagents' share. */
function headlineCards(report: Report): string {
  const t = report.totals;
  const sav = t.saved.pico === null ? '' : t.saved.pico.startsWith('-') ? 'neg' : 'pos';
  const savedSub = `${plural(t.corrected, 'correction')} · ${plural(t.denied, 'denial')}${t.savedRuns ? ` · ${plural(t.savedRuns, 'run')} priced both ways` : ''}`;
  const cards = [
    card(
      'Saved by tiergate',
      `<span class="${sav}">${moneySpan(t.saved, 'saved')}</span>`,
      `${savedSub}<br>each corrected child's usage on the model it would have run on without tiergate, at the rates its decision saw, minus what it cost${savedNotes(t)}`,
    ),
  ];
  const w = report.wholeUsage;
  if (w && w.cost.pico !== null && w.subagentCost.pico !== null && BigInt(w.cost.pico) > 0n) {
    const share = Number((BigInt(w.subagentCost.pico) * 1000n) / BigInt(w.cost.pico)) / 10;
    cards.push(
      card(
        "Subagents' share",
        `<span data-total="subagentShare">${share}%</span>`,
        `${h(usd(w.subagentCost) ?? '-')} of the ${h(usd(w.cost) ?? '-')} the ${plural(w.sessions, 'scanned session')} spent`,
      ),
    );
  }
  return cards.join('\n');
}

function totalsCards(report: Report): string {
  const t = report.totals;
  const num = (key: string, n: number) => `<span data-total="${key}">${count(n)}</span>`;
  const cost = t.usageNotReported
    ? `<span data-total="cost" data-usd="">${h(costCell(t))}</span>`
    : t.cost.usd === null
      ? `<span data-total="cost" data-usd="" class="${t.unpricedRuns ? 'unpriced' : ''}">${t.unpricedRuns ? 'unpriced' : '-'}</span>`
      : moneySpan(t.cost, 'cost');
  const costSub = [
    t.unpricedRuns
      ? `<span class="unpriced">+ <span data-total="unpricedRuns">${count(t.unpricedRuns)}</span> unpriced ${t.unpricedRuns === 1 ? 'run' : 'runs'}, not included</span>`
      : '',
    t.noUsageRuns
      ? `<span data-total="noUsageRuns">${count(t.noUsageRuns)}</span> without usage (${NO_USAGE_NAMES ? `${h(NO_USAGE_NAMES)}, ` : ''}pending)`
      : '',
  ]
    .filter(Boolean)
    .join('<br>');
  const sav = t.savings.usd === null ? '' : t.savings.usd.startsWith('-') ? 'neg' : 'pos';
  return `<section class="cards" id="totals" aria-label="Totals">
${headlineCards(report)}
${card('Subagent runs', num('runs', t.runs), `${num('dispatches', t.dispatches)} dispatches seen · ${num('denied', t.denied)} denied${t.limitDenied ? ` (${num('limitDenied', t.limitDenied)} by a limit)` : ''}${t.stopped ? ` · ${num('stopped', t.stopped)} stopped` : ''}`)}${t.asked ? `\n${card('Asked', num('asked', t.asked), `at the harness's permission prompt · ${num('askedRan', t.askedRan ?? 0)} approved and ran`)}` : ''}
${card('Completed', num('completed', t.completed), `${num('pending', t.pending)} pending`)}
${card('Verified', num('verified', t.verified), 'reported <code>Verified:</code> yes')}
${card('Cost', cost, costSub)}
${card("On the parent's model", moneySpan(t.counterfactual, 'counterfactual'), `same usage, ${plural(t.comparableRuns, 'comparable run')}`)}
${card("Savings vs the parent's model", `<span class="${sav}">${moneySpan(t.savings, 'savings')}</span>`, "parent's model minus actual")}
${card(
  'Tokens',
  `<span data-total="tokens">${h(tokensCell(t))}</span>`,
  `${count(t.tokens.input)} in · ${count(t.tokens.output)} out · ${count(t.tokens.cacheRead)} cache read · ${count(t.tokens.cacheWrite)} cache write`,
)}
</section>`;
}

function modelsHtml(r: ReportRow): string {
  if (r.models.length === 0) return '-';
  return r.models
    .map((m) => {
      const served = m.served ?? '?';
      const same = m.requested === null || m.requested === m.served;
      const text = same ? served : `${m.requested} → ${served}`;
      // A pair tiergate corrected is the correction, not a mismatch (issue 29: requested is what the dispatch asked for).
      const corrected = (m.corrected ?? 0) >= m.runs && m.runs > 0;
      // Pairs do not break inside unless one is too long for a column (a very long model id).
      const cls = [
        'pair',
        text.length > 40 ? 'long' : '',
        corrected ? 'corrected' : '',
        !same && !corrected && servedMatchesRequested(m.requested, m.served) === false ? 'mismatch' : '',
      ]
        .filter(Boolean)
        .join(' ');
      const title = cls.includes('mismatch')
        ? ' title="served model differs from the requested one"'
        : corrected
          ? ' title="corrected by tiergate"'
          : '';
      // Each id unbroken, the pair free to wrap after the arrow: the column stays narrow enough for 1280 px.
      const id = (v: string) => `<span class="id">${h(v)}</span>`;
      const inner = same ? id(served) : `${id(m.requested!)} → ${id(served)}`;
      return `<span class="${cls}"${title}>${inner}</span>`;
    })
    .join('<br>');
}

function costHtml(r: ReportRow): string {
  const text = costCell(r);
  return r.unpricedRuns > 0 ? `<span class="unpriced">${h(text)}</span>` : h(text);
}

/** Cost first after the name: on a phone the table scrolls inside its box, and the money is what one looks for. */
function tableHtml(report: Report): string {
  const head = [
    report.by,
    'cost',
    'saved by tiergate',
    "savings vs parent's model",
    'runs',
    'dispatches',
    'corrected',
    'completed',
    'verified',
    'requested → served',
    'tokens',
    "on parent's model",
  ];
  const MODELS = 9;
  const numeric = new Set([1, 2, 3, 4, 5, 6, 7, 8, 10, 11]);
  const th = head.map((c, i) => `<th${numeric.has(i) ? ' class="num"' : ''} scope="col">${h(c)}</th>`).join('');
  const tr = (r: ReportRow, total: boolean) => {
    const cells = [
      h(total ? 'total' : (r.group ?? '(none)')),
      costHtml(r),
      h(moneyText(r.saved)),
      h(moneyText(r.savings)),
      count(r.runs),
      count(r.dispatches) + refusalNote(r),
      count(r.corrected) +
        (r.correctedTo?.length
          ? ` <span class="note">(→ ${r.correctedTo.map((t) => h(t.value)).join(', ')})</span>`
          : ''),
      count(r.completed) + (r.pending ? ` <span class="note">(+${count(r.pending)} pending)</span>` : ''),
      count(r.verified),
      modelsHtml(r),
      h(tokensCell(r)),
      h(moneyText(r.counterfactual)),
    ];
    return `<tr${total ? ' class="total"' : ''}>${cells.map((c, i) => (i === 0 && !total ? `<th scope="row">${c}</th>` : `<td${numeric.has(i) ? ' class="num"' : i === MODELS ? ' class="models"' : ''}>${c}</td>`)).join('')}</tr>`;
  };
  return `<section id="table"><h2>Per ${h(report.by === 'agent' ? 'subagent type' : report.by)}</h2>
<div class="table-box"><table><thead><tr>${th}</tr></thead><tbody>
${report.rows.map((r) => tr(r, false)).join('\n')}
${tr(report.totals, true)}
</tbody></table></div></section>`;
}

/** The period and time zone as people read them (not raw ISO instants), the other filters, and when it was made. */
function scopeText(report: Report): string {
  const f = report.filters;
  const filters = filterText(f);
  const team = report.source === 'team' ? ' · team ledger' : '';
  const generated = wallTimeIn(f.timeZone ?? 'UTC', Date.parse(report.generatedAt));
  return `Period: ${periodText(f)}${filters ? ` · ${filters}` : ''}${team} · generated ${generated}`;
}

function figure(id: string, title: string, note: string, label: string): string {
  return `<figure class="chart" id="${id}"><figcaption>${h(title)}</figcaption>
<div class="canvas-box"><canvas role="img" aria-label="${h(label)}"></canvas></div><p class="chart-error"></p><p class="note">${note}</p></figure>`;
}

const hasTiers = (d: HtmlReportData) => d.byTier.rows.some((r) => r.group !== null);

function chartsHtml(d: HtmlReportData, m: ReturnType<typeof chartModel>): string {
  const days = m.costByTier.days.length;
  const omitted = d.omittedDays
    ? ` The ${plural(d.omittedDays, 'older day')} before these are in the totals, not in the chart.`
    : '';
  const unpriced = m.costByTier.unpricedRuns
    ? ` <span class="unpriced">${plural(m.costByTier.unpricedRuns, 'unpriced run')} (no price for the served model) ${m.costByTier.unpricedRuns === 1 ? 'is' : 'are'} not in the bars.</span>`
    : '';
  const corr = m.models.correctedRuns
    ? `${plural(m.models.correctedRuns, 'run')} corrected by tiergate (green: asked for the left model, ran on the right).`
    : '';
  const mism = m.models.mismatchedRuns
    ? `<span class="mismatch">${plural(m.models.mismatchedRuns, 'run')} served by a different model than requested</span> (red).`
    : m.models.correctedRuns
      ? 'Every other run was served the model it requested.'
      : 'Every run was served the model it requested.';
  const zone = h(d.main.filters.timeZone ?? 'UTC');
  // No run has a tier (a ledger filled by tiergate scan: transcripts record none): per-tier charts would be one grey bar.
  const tiers = hasTiers(d);
  const noTier = tiers
    ? ''
    : `<p class="note" id="no-tier-note">Cost per day by tier and outcome rates per tier are left out: no run here has a tier
(runs read by <code>tiergate scan</code> carry none; tiergate's hooks set one when they route a dispatch).</p>`;
  return `<h2>Charts</h2>${noTier}<section class="charts" id="charts">
${tiers ? figure('chart-cost-by-tier', 'Cost per day by tier', `Days in ${zone}, ${plural(days, 'day')} shown.${omitted}${unpriced}`, 'Stacked bars: cost per day, one colour per tier') : ''}
${figure('chart-savings', "Savings vs the parent's model", `Bars: actual cost and the same usage priced at the parent's model (runs priced on both sides), per day in ${zone}. Line: savings so far (red below zero).`, 'Bars of actual and counterfactual cost per day, line of cumulative savings')}
${figure('chart-models', 'Requested → served model', `Runs per requested → served pair (requested: the model the dispatch would have run on without tiergate; aliases such as <code>haiku</code> match their full id; "no model named": the dispatch named none). ${corr} ${mism}`, 'Horizontal bars: runs per requested and served model pair')}
${tiers ? figure('chart-outcomes', 'Outcome rates per tier', 'Share of runs that ran (denied dispatches excluded) reporting <code>Result:</code> done and <code>Verified:</code> yes.', 'Grouped bars: completed and verified percentage per tier') : ''}
</section>`;
}

const EMPTY_STATE = `<section class="empty" id="empty-state"><strong>No subagent runs recorded${'{RANGE}'}.</strong><br>
Runs appear here once a harness with tiergate installed dispatches a subagent; <code>tiergate scan</code> backfills past
Claude Code and Codex sessions from their transcripts.</section>`;

export function formatHtml(d: HtmlReportData, opts: HtmlOptions = {}): string {
  const report = d.main;
  const empty = report.totals.runs === 0;
  const f = report.filters;
  const filtered = Boolean(f.since || f.until || f.harness || f.session || f.project || f.user || f.origin);
  const reportJson = jsonForScript(report);
  let body: string;
  let scripts = '';
  const hashes: string[] = [];
  if (empty) {
    body = EMPTY_STATE.replace('{RANGE}', filtered ? ' for these filters' : ' yet');
  } else {
    const model = chartModel(d);
    const lib = opts.chartLib ?? chartLibSource();
    const page = pageScriptSource();
    hashes.push(sha256(lib), sha256(page));
    body = `${chartsHtml(d, model)}\n${tableHtml(report)}`;
    scripts = `<script type="application/json" id="tiergate-charts">${jsonForScript(model)}</script>
<script>${lib}</script>
<script>${page}</script>`;
  }
  // Only the two inline scripts above may run; nothing may be fetched (no network, even from a copied page).
  const csp = [
    `default-src 'none'`,
    `script-src ${hashes.length ? hashes.join(' ') : `'none'`}`,
    `style-src 'unsafe-inline'`,
    `img-src data:`,
    `base-uri 'none'`,
    `form-action 'none'`,
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="tiergate">
<title>tiergate report · ${h(report.generatedAt.slice(0, 10))}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<header><h1>tiergate · subagent cost report</h1><p class="scope">${h(scopeText(report))}</p></header>
${totalsCards(report)}
${body}
<footer>Costs use the price in effect when each run was recorded; a run whose served model has no price is shown as
unpriced, never as $0.${NO_USAGE_NAMES ? ` ${h(NO_USAGE_NAMES)} reports no token usage.` : ''} Savings compare the same usage priced at the parent's model, over
runs priced on both sides. No prompt or result text is stored by tiergate, so none appears here. The JSON behind this
page is embedded as <code>#tiergate-report</code> (the same as <code>tiergate report --json</code>).</footer>
<script type="application/json" id="tiergate-report">${reportJson}</script>
${scripts}
</body>
</html>
`;
}
