/**
 * The page script's chart configs (src/report/html/page-script.ts), drawn into a stand-in Chart constructor: the
 * cumulative-savings line is red where the running total is below zero, and a corrected model pair is a green bar,
 * a mismatch a red one (issue 29).
 */
import { describe, expect, it } from 'vitest';
import type { ChartModel } from '../../../src/report/html/chart-model.js';
import { pageMain } from '../../../src/report/html/page-script.js';

type Dataset = {
  label: string;
  segment?: { borderColor: (c: { p1: { parsed: { y: number } } }) => string };
  pointBackgroundColor?: string[];
  backgroundColor?: string | string[];
};

function drawn(model: ChartModel): Map<string, { data: { datasets: Dataset[] } }> {
  const el = (id: string) => ({
    id,
    textContent: id === 'tiergate-charts' ? JSON.stringify(model) : '',
    querySelector: (sel: string) => (sel === 'canvas' ? { canvasOf: id } : null),
    setAttribute: () => undefined,
    style: { height: '' },
  });
  const charts = new Map<string, { data: { datasets: Dataset[] } }>();
  function FakeChart(canvas: { canvasOf: string }, config: { data: { datasets: Dataset[] } }) {
    charts.set(canvas.canvasOf, config);
  }
  const doc = { getElementById: (id: string) => el(id), documentElement: el('html') };
  pageMain(doc as never, FakeChart as never, {});
  return charts;
}

const model: ChartModel = {
  costByTier: { days: [], series: [], unpricedRuns: 0, omittedDays: 0, dayBudgetUsd: null },
  savings: {
    days: ['2026-12-01', '2026-12-02', '2026-12-03'],
    cost: [1, 2, 1],
    counterfactual: [2, 0.5, 1],
    cumulativeSavings: [1, -0.5, -0.5],
    comparableRuns: [1, 1, 1],
  },
  models: {
    pairs: [
      {
        label: 'opus → sonnet',
        requested: 'opus',
        served: 'claude-sonnet-5-5',
        runs: 2,
        mismatch: false,
        corrected: 2,
      },
      { label: 'haiku → x', requested: 'haiku', served: 'x', runs: 1, mismatch: true, corrected: 0 },
      { label: 'y', requested: null, served: 'y', runs: 1, mismatch: false, corrected: 0 },
    ],
    mismatchedRuns: 1,
    correctedRuns: 2,
  },
  outcomes: { tiers: [], colors: [], ran: [], completed: [], verified: [], completedPct: [], verifiedPct: [] },
};

describe('page script colours', () => {
  const charts = drawn(model);

  it('the cumulative-savings line is red below zero, green above', () => {
    const line = charts.get('chart-savings')!.data.datasets.find((d) => d.label === 'cumulative savings')!;
    expect(line.segment!.borderColor({ p1: { parsed: { y: -0.5 } } })).toBe('#e15759');
    expect(line.segment!.borderColor({ p1: { parsed: { y: 1 } } })).toBe('#59a14f');
    expect(line.pointBackgroundColor).toEqual(['#59a14f', '#e15759', '#e15759']);
  });

  it('requested → served: corrections green, mismatches red, the rest blue', () => {
    const bars = charts.get('chart-models')!.data.datasets[0]!;
    expect(bars.backgroundColor).toEqual(['#59a14f', '#e15759', '#4e79a7']);
  });
});
