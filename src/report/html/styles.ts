/** The page's stylesheet: plain CSS, light and dark, readable printed. */
export const PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1d1d1f; --muted: #6b6b70; --bg: #ffffff; --card: #f5f6f8; --line: #dcdde1; --bad: #c0392b; --good: #2e7d32; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8ea; --muted: #a0a0a8; --bg: #16171a; --card: #212226; --line: #34353a; --bad: #ff7b6b; --good: #7bd88f; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 24px 16px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 10px; }
.scope, .note, footer { color: var(--muted); }
.note { font-size: 12px; margin: 6px 0 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 160px), 1fr)); gap: 12px; margin-top: 16px; }
.card { background: var(--card); border-radius: 8px; padding: 12px 14px; min-width: 0; }
@media (min-width: 360px) { .card:first-child, .card.wide { grid-column: span 2; } }
.card:first-child .value { font-size: 28px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 22px; font-weight: 600; margin-top: 2px; font-variant-numeric: tabular-nums; overflow-wrap: break-word; }
.card .sub { color: var(--muted); font-size: 12px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); gap: 16px; margin-top: 8px; }
figure.chart { margin: 0; background: var(--card); border-radius: 8px; padding: 12px 14px; min-width: 0; }
figure.chart figcaption { font-weight: 600; }
.canvas-box { position: relative; height: 300px; margin-top: 8px; }
.chart-error { color: var(--bad); font-size: 12px; margin: 0; }
.empty { background: var(--card); border-radius: 8px; padding: 28px; margin-top: 16px; font-size: 15px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; }
.table-box { overflow-x: auto; max-width: 100%; }
.table-box th[scope=row] { position: sticky; left: 0; background: var(--bg); min-width: 8em; max-width: 18em; overflow-wrap: anywhere; }
.scope { overflow-wrap: anywhere; }
@media (max-width: 600px) { body { padding: 12px 10px; } h1 { font-size: 18px; } .card .value { font-size: 18px; } .card:first-child .value { font-size: 22px; } }
.pair .id { white-space: nowrap; }
.pair.long .id { white-space: normal; overflow-wrap: anywhere; }
table { font-size: 13px; }
tr.total td { font-weight: 600; border-top: 2px solid var(--line); }
.mismatch { color: var(--bad); font-weight: 600; }
.corrected { color: var(--good); }
.unpriced { color: var(--bad); }
.neg { color: var(--bad); }
.pos { color: var(--good); }
code { font-size: 13px; }
footer { margin-top: 28px; font-size: 12px; }
@media print { .charts { grid-template-columns: 1fr; } figure.chart { break-inside: avoid; } }
`;
