/**
 * The numbers each chart plots, derived from the report pieces (data.ts) in Node so the page script only draws.
 * Money stays exact (pico-USD bigint) until the last step, where a chart needs a float; the exact figures are shown
 * in the totals and the table. A group with nothing priced plots as a gap (null), never as $0.
 */
import type { Money, ReportRow } from '../../contracts/report.js';
import type { HtmlReportData } from './data.js';
import { servedMatchesRequested } from './model-match.js';

export const NO_TIER = '(no tier)';
const TIER_COLORS: Record<string, string> = {
  cheap: '#59a14f',
  standard: '#4e79a7',
  premium: '#b07aa1',
  parent: '#f28e2b',
  [NO_TIER]: '#a0a0a0',
};
const EXTRA_COLORS = ['#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#e15759', '#bab0ac'];
const TIER_ORDER = ['cheap', 'standard', 'premium', 'parent'];
/** Served vs requested: the busiest pairs get a bar each, the rest one "other pairs" bar. */
export const MAX_MODEL_PAIRS = 12;

export type ChartModel = {
  costByTier: {
    days: string[];
    series: { tier: string; color: string; usd: (number | null)[]; unpricedRuns: number[] }[];
    unpricedRuns: number;
    omittedDays: number;
    /** The daily spend budget (USD), drawn as a line across the days; null when none is set. */
    dayBudgetUsd: number | null;
  };
  savings: {
    days: string[];
    cost: (number | null)[];
    counterfactual: (number | null)[];
    cumulativeSavings: (number | null)[];
    comparableRuns: number[];
  };
  models: {
    pairs: {
      label: string;
      requested: string | null;
      served: string | null;
      runs: number;
      mismatch: boolean;
      /** Runs of the pair tiergate corrected: asked for `requested`, moved to `served`. */
      corrected: number;
    }[];
    mismatchedRuns: number;
    correctedRuns: number;
  };
  outcomes: {
    tiers: string[];
    colors: string[];
    ran: number[];
    completed: number[];
    verified: number[];
    completedPct: number[];
    verifiedPct: number[];
  };
};

const pico = (m: Money): bigint | null => (m.pico === null ? null : BigInt(m.pico));
/** pico-USD -> USD float for plotting (12 decimal places are more than a chart can show). */
const plotUsd = (p: bigint | null): number | null => (p === null ? null : Number(p) / 1e12);

function tierColors(tiers: string[]): Map<string, string> {
  const out = new Map<string, string>();
  let extra = 0;
  for (const t of tiers) out.set(t, TIER_COLORS[t] ?? EXTRA_COLORS[extra++ % EXTRA_COLORS.length]!);
  return out;
}

function orderTiers(tiers: Iterable<string>): string[] {
  const rank = (t: string) => (t === NO_TIER ? 1000 : TIER_ORDER.indexOf(t) === -1 ? 100 : TIER_ORDER.indexOf(t));
  return [...new Set(tiers)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

const tierOf = (r: ReportRow): string => r.group ?? NO_TIER;

function costByTier(d: HtmlReportData): ChartModel['costByTier'] {
  const tiers = orderTiers(d.dayTier.flatMap((x) => x.report.rows.map(tierOf)));
  const colors = tierColors(tiers);
  const series = tiers.map((tier) => {
    const rows = d.dayTier.map((x) => x.report.rows.find((r) => tierOf(r) === tier));
    return {
      tier,
      color: colors.get(tier)!,
      usd: rows.map((r) => (r ? plotUsd(pico(r.cost)) : null)),
      unpricedRuns: rows.map((r) => r?.unpricedRuns ?? 0),
    };
  });
  return {
    days: d.dayTier.map((x) => x.day),
    series,
    unpricedRuns: d.dayTier.reduce((a, x) => a + x.report.totals.unpricedRuns, 0),
    omittedDays: d.omittedDays,
    dayBudgetUsd: d.budget?.dayUsd ?? null,
  };
}

function savings(d: HtmlReportData): ChartModel['savings'] {
  const shown = new Set(d.dayTier.map((x) => x.day));
  const rows = d.byDay.rows
    .filter((r) => r.group !== null && shown.has(r.group))
    .sort((a, b) => a.group!.localeCompare(b.group!));
  let cum: bigint | null = null;
  const cumulative: (number | null)[] = [];
  for (const r of rows) {
    const s = pico(r.savings);
    if (s !== null) cum = (cum ?? 0n) + s;
    cumulative.push(plotUsd(cum));
  }
  return {
    days: rows.map((r) => r.group!),
    cost: rows.map((r) => plotUsd(pico(r.cost))),
    counterfactual: rows.map((r) => plotUsd(pico(r.counterfactual))),
    cumulativeSavings: cumulative,
    comparableRuns: rows.map((r) => r.comparableRuns),
  };
}

const MAX_LABEL = 32;
const clip = (s: string) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);
/** Axis labels are clipped so one long model id cannot squeeze the bars; the tooltip shows the full pair. */
const modelLabel = (requested: string | null, served: string | null) =>
  `${clip(requested ?? 'no model named')} → ${clip(served ?? '(not known yet)')}`;

function models(d: HtmlReportData): ChartModel['models'] {
  const pairs = new Map<string, { requested: string | null; served: string | null; runs: number; corrected: number }>();
  for (const row of d.byModel.rows) {
    for (const p of row.models) {
      const k = `${p.requested}\u0000${p.served}`;
      const cur = pairs.get(k);
      if (cur) {
        cur.runs += p.runs;
        cur.corrected += p.corrected ?? 0;
      } else pairs.set(k, { requested: p.requested, served: p.served, runs: p.runs, corrected: p.corrected ?? 0 });
    }
  }
  const all = [...pairs.values()]
    .map((p) => ({
      ...p,
      label: modelLabel(p.requested, p.served),
      // A pair tiergate corrected is the correction showing, not a harness serving another model.
      mismatch: p.corrected < p.runs && servedMatchesRequested(p.requested, p.served) === false,
    }))
    // Mismatches first among equals: they are what the chart is for.
    .sort((a, b) => b.runs - a.runs || Number(b.mismatch) - Number(a.mismatch) || a.label.localeCompare(b.label));
  const mismatchedRuns = all.reduce((a, p) => a + (p.mismatch ? p.runs - p.corrected : 0), 0);
  const correctedRuns = all.reduce((a, p) => a + p.corrected, 0);
  if (all.length <= MAX_MODEL_PAIRS) return { pairs: all, mismatchedRuns, correctedRuns };
  // Keep every mismatch visible; fold the quietest matching pairs.
  const keep = [
    ...all.filter((p) => p.mismatch || p.corrected > 0),
    ...all.filter((p) => !p.mismatch && p.corrected === 0),
  ].slice(0, MAX_MODEL_PAIRS - 1);
  const kept = new Set(keep);
  const rest = all.filter((p) => !kept.has(p));
  const other = {
    label: `${rest.length} other pairs`,
    requested: null,
    served: null,
    runs: rest.reduce((a, p) => a + p.runs, 0),
    mismatch: rest.some((p) => p.mismatch),
    corrected: rest.reduce((a, p) => a + p.corrected, 0),
  };
  return { pairs: [...keep.sort((a, b) => b.runs - a.runs), other], mismatchedRuns, correctedRuns };
}

function outcomes(d: HtmlReportData): ChartModel['outcomes'] {
  // Denied dispatches never ran: they are not failures of the tier.
  const rows = d.byTier.rows.filter((r) => r.runs - r.denied > 0);
  const tiers = orderTiers(rows.map(tierOf));
  const colors = tierColors(tiers);
  const byTier = new Map(rows.map((r) => [tierOf(r), r]));
  const ran = tiers.map((t) => byTier.get(t)!.runs - byTier.get(t)!.denied);
  const completed = tiers.map((t) => byTier.get(t)!.completed);
  const verified = tiers.map((t) => byTier.get(t)!.verified);
  const pct = (n: number, of: number) => Math.round((1000 * n) / of) / 10;
  return {
    tiers,
    colors: tiers.map((t) => colors.get(t)!),
    ran,
    completed,
    verified,
    completedPct: completed.map((n, i) => pct(n, ran[i]!)),
    verifiedPct: verified.map((n, i) => pct(n, ran[i]!)),
  };
}

export function chartModel(d: HtmlReportData): ChartModel {
  return { costByTier: costByTier(d), savings: savings(d), models: models(d), outcomes: outcomes(d) };
}
