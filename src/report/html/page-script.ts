/**
 * The page's own script: draws the four charts from the embedded chart model with the inlined Chart.js. It is
 * serialized with Function.prototype.toString into the page, so it must reference nothing outside its body (types
 * only). All text reaches the page as canvas drawing or textContent, never as markup.
 */
import type { ChartModel } from './chart-model.js';

type El = {
  textContent: string | null;
  querySelector(sel: string): El | null;
  setAttribute(name: string, value: string): void;
  style: { height: string };
  clientWidth?: number;
};
type Ctx2d = { font: string; measureText(text: string): { width: number } };
type Doc = {
  getElementById(id: string): El | null;
  documentElement: El;
  createElement?(tag: 'canvas'): { getContext(kind: '2d'): Ctx2d | null };
};
type ChartCtor = (new (
  canvas: El,
  config: unknown,
) => unknown) & {
  defaults?: { color: string; borderColor: string; font?: { size?: number; family?: string } };
};
type Win = { matchMedia?: (q: string) => { matches: boolean } };
type TipCtx = { datasetIndex: number; dataIndex: number; raw: unknown };

export function pageMain(doc: Doc, Chart: ChartCtor | undefined, win: Win): void {
  const src = doc.getElementById('tiergate-charts');
  if (!src) return;
  if (!Chart) {
    console.error('tiergate: the chart library did not load');
    return;
  }
  const m = JSON.parse(src.textContent || 'null') as ChartModel;
  // The stylesheet follows prefers-color-scheme; Chart.js's default grey text would vanish on the dark background.
  if (Chart.defaults && win.matchMedia && win.matchMedia('(prefers-color-scheme: dark)').matches) {
    Chart.defaults.color = '#c8c8cc';
    Chart.defaults.borderColor = 'rgba(255,255,255,0.12)';
  }
  const money = (v: unknown): string => {
    if (typeof v !== 'number') return 'unpriced';
    const a = Math.abs(v);
    return `${v < 0 ? '-' : ''}$${a.toFixed(a > 0 && a < 0.01 ? 4 : 2)}`;
  };
  // Ticks as dollars with as many decimals as the step between them needs: $0.00, $0.00, $0.01 repeated before.
  const axisMoney = {
    callback: (v: unknown, _i: number, ticks: { value: number }[]) => {
      const step = ticks.length > 1 ? Math.abs(ticks[1]!.value - ticks[0]!.value) : 0;
      const digits = step > 0 ? Math.min(6, Math.max(2, Math.ceil(-Math.log10(step) - 1e-9))) : 2;
      return typeof v === 'number' ? `${v < 0 ? '-' : ''}$${Math.abs(v).toFixed(digits)}` : '';
    },
  };
  const legend = { position: 'bottom', labels: { boxWidth: 12 } };
  const base = { animation: false, responsive: true, maintainAspectRatio: false };
  let drawn = 0;

  const draw = (id: string, config: () => unknown): void => {
    const fig = doc.getElementById(id);
    const canvas = fig && fig.querySelector('canvas');
    if (!fig || !canvas) return;
    try {
      new Chart(canvas, config());
      drawn++;
    } catch (err) {
      const note = fig.querySelector('.chart-error');
      if (note) note.textContent = 'This chart could not be drawn.';
      console.error('tiergate: chart', id, err);
    }
  };

  draw('chart-cost-by-tier', () => ({
    type: 'bar',
    data: {
      labels: m.costByTier.days,
      datasets: [
        ...m.costByTier.series.map((s) => ({ label: s.tier, data: s.usd, backgroundColor: s.color, stack: 'cost' })),
        // The daily budget as a dashed line of its own stack, so it is never added onto the bars.
        ...(m.costByTier.dayBudgetUsd === null
          ? []
          : [
              {
                type: 'line',
                label: `daily budget ${money(m.costByTier.dayBudgetUsd)}`,
                data: m.costByTier.days.map(() => m.costByTier.dayBudgetUsd),
                borderColor: '#e15759',
                backgroundColor: '#e15759',
                borderDash: [6, 4],
                borderWidth: 2,
                pointRadius: 0,
                fill: false,
                stack: 'budget',
              },
            ]),
      ],
    },
    options: {
      ...base,
      scales: {
        x: { stacked: true },
        y: { stacked: true, beginAtZero: true, ticks: axisMoney, title: { display: true, text: 'cost (USD)' } },
      },
      plugins: {
        legend,
        tooltip: {
          callbacks: {
            label: (c: TipCtx) => {
              const s = m.costByTier.series[c.datasetIndex];
              if (!s) return `daily budget: ${money(c.raw)}`;
              const u = s.unpricedRuns[c.dataIndex] || 0;
              const cost = c.raw === null ? 'nothing priced' : money(c.raw);
              return `${s.tier}: ${cost}${u ? ` (+${u} unpriced run${u === 1 ? '' : 's'}, not in the bar)` : ''}`;
            },
          },
        },
      },
    },
  }));

  draw('chart-savings', () => ({
    type: 'bar',
    data: {
      labels: m.savings.days,
      datasets: [
        { label: 'actual cost', data: m.savings.cost, backgroundColor: '#4e79a7', order: 2 },
        {
          label: "same usage on the parent's model",
          data: m.savings.counterfactual,
          backgroundColor: '#d3d3d3',
          borderColor: '#8c8c8c',
          borderWidth: 1,
          order: 3,
        },
        {
          type: 'line',
          label: 'cumulative savings',
          data: m.savings.cumulativeSavings,
          borderColor: '#59a14f',
          backgroundColor: '#59a14f',
          // Red where the running total is below zero: the children cost more than the parent's model would have.
          segment: {
            borderColor: (c: { p1: { parsed: { y: number } } }) => (c.p1.parsed.y < 0 ? '#e15759' : '#59a14f'),
          },
          pointBackgroundColor: m.savings.cumulativeSavings.map((v) => (v !== null && v < 0 ? '#e15759' : '#59a14f')),
          pointBorderColor: m.savings.cumulativeSavings.map((v) => (v !== null && v < 0 ? '#e15759' : '#59a14f')),
          yAxisID: 'y2',
          tension: 0.2,
          spanGaps: true,
          order: 1,
        },
      ],
    },
    options: {
      ...base,
      scales: {
        y: { beginAtZero: true, ticks: axisMoney, title: { display: true, text: 'per day (USD)' } },
        y2: {
          position: 'right',
          beginAtZero: true,
          ticks: axisMoney,
          grid: { drawOnChartArea: false },
          title: { display: true, text: 'cumulative savings (USD)' },
        },
      },
      plugins: {
        legend,
        tooltip: {
          callbacks: {
            label: (c: TipCtx) => {
              const names = ['actual cost', "on the parent's model", 'cumulative savings'];
              const n = m.savings.comparableRuns[c.dataIndex] || 0;
              return `${names[c.datasetIndex]}: ${money(c.raw)}${c.datasetIndex === 1 ? ` (${n} comparable run${n === 1 ? '' : 's'})` : ''}`;
            },
          },
        },
      },
    },
  }));

  const pairs = m.models.pairs;
  const modelsFig = doc.getElementById('chart-models');
  const modelsBox = modelsFig && modelsFig.querySelector('.canvas-box');
  // Chart.js gives the label axis at most half the chart's width and draws a longer label past the canvas edge, cut
  // off (issue 34: clipped at 390 px, and at any width for long model ids). So each label is made to fit that half,
  // measured in the axis font: on one line when it fits, else requested and served on two lines, each shortened with
  // an ellipsis only if it must be. The tooltip shows the whole pair.
  const font = (Chart.defaults && Chart.defaults.font) || {};
  const measurer = doc.createElement ? doc.createElement('canvas').getContext('2d') : null;
  if (measurer) measurer.font = `${font.size || 12}px ${font.family || 'sans-serif'}`;
  const textWidth = (t: string): number => (measurer ? measurer.measureText(t).width : t.length * 7);
  const room = Math.max(48, ((modelsBox && modelsBox.clientWidth) || 600) / 2 - 24);
  // Shortened in the middle: model ids differ at their ends (a date, a version, a preview number).
  const fit = (t: string): string => {
    if (textWidth(t) <= room) return t;
    const cut = (n: number) => `${t.slice(0, Math.ceil(n * 0.4))}…${t.slice(t.length - Math.floor(n * 0.6))}`;
    let n = t.length - 1;
    while (n > 2 && textWidth(cut(n)) > room) n--;
    return cut(n);
  };
  const labels = pairs.map((p): string | string[] => {
    if (p.requested === null && p.served === null) return fit(p.label);
    const requested = p.requested ?? 'no model named';
    const served = p.served ?? '(not known yet)';
    const one = `${requested} → ${served}`;
    return textWidth(one) <= room ? one : [fit(`${requested} →`), fit(served)];
  });
  const twoLines = labels.some((l) => Array.isArray(l));
  if (modelsBox) modelsBox.style.height = `${Math.max(160, 60 + (twoLines ? 40 : 30) * pairs.length)}px`;
  draw('chart-models', () => ({
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          label: 'runs',
          data: pairs.map((p) => p.runs),
          backgroundColor: pairs.map((p) => (p.mismatch ? '#e15759' : p.corrected > 0 ? '#59a14f' : '#4e79a7')),
        },
      ],
    },
    options: {
      ...base,
      indexAxis: 'y',
      scales: { x: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'runs' } } },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: (items: TipCtx[]) => {
              const p = pairs[items[0]!.dataIndex]!;
              return p.requested === null && p.served === null
                ? p.label
                : `${p.requested ?? 'no model named'} → ${p.served ?? '(not known yet)'}`;
            },
            label: (c: TipCtx) => {
              const p = pairs[c.dataIndex]!;
              const why = p.mismatch
                ? ': served model differs from the requested one'
                : p.corrected > 0
                  ? `: ${p.corrected} corrected by tiergate`
                  : '';
              return `${c.raw} run${c.raw === 1 ? '' : 's'}${why}`;
            },
          },
        },
      },
    },
  }));

  const o = m.outcomes;
  draw('chart-outcomes', () => ({
    type: 'bar',
    data: {
      labels: o.tiers,
      datasets: [
        { label: 'completed', data: o.completedPct, backgroundColor: '#4e79a7' },
        { label: 'verified', data: o.verifiedPct, backgroundColor: '#59a14f' },
      ],
    },
    options: {
      ...base,
      scales: {
        y: {
          beginAtZero: true,
          max: 100,
          ticks: { callback: (v: unknown) => `${v}%` },
          title: { display: true, text: '% of runs that ran' },
        },
      },
      plugins: {
        legend,
        tooltip: {
          callbacks: {
            label: (c: TipCtx) => {
              const n = c.datasetIndex === 0 ? o.completed[c.dataIndex] : o.verified[c.dataIndex];
              return `${c.datasetIndex === 0 ? 'completed' : 'verified'}: ${n} of ${o.ran[c.dataIndex]} (${c.raw}%)`;
            },
          },
        },
      },
    },
  }));

  doc.documentElement.setAttribute('data-charts-drawn', String(drawn));
}

/** The script text for the page: the function above, called on load. */
export function pageScriptSource(): string {
  return `(${pageMain.toString()})(document, window.Chart, window);`;
}
