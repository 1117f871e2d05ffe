/**
 * Human cells shared by the terminal table, CSV and the HTML page: one wording for money, unpriced, runs without
 * reported usage, savings.
 */
import { DESCRIPTORS } from '../descriptors/index.js';
import { HARNESS_IDS } from '../contracts/harness.js';
import type { Money, ReportRow } from '../contracts/report.js';

/** The registry's harnesses whose completions carry no usage (descriptor reportsUsage: false), by name: "Cursor". */
export const NO_USAGE_NAMES = HARNESS_IDS.filter((h) => !DESCRIPTORS[h].reportsUsage)
  .map((h) => DESCRIPTORS[h].name)
  .join(' or ');

export const NO_USAGE_TEXT = NO_USAGE_NAMES ? `usage not reported by ${NO_USAGE_NAMES}` : 'usage not reported';

/**
 * The report's line on runs billed by request at a multiplier (Report totals.multiplier), worded by the registry's
 * harnesses that bill so (each descriptor's requestBilling: the unit, who bills), not by name.
 */
export function requestBillingText(m: { runs: number; min: number; max: number }): string {
  const billers = HARNESS_IDS.map((h) => DESCRIPTORS[h]).filter((d) => d.requestBilling);
  const list = (f: (b: { unit: string; by: string }) => string) =>
    [...new Set(billers.map((d) => f(d.requestBilling!)))].join(' or ');
  const range = m.min === m.max ? `${m.min}x` : `${m.min}x–${m.max}x`;
  const names = billers.map((d) => d.name).join(' or ');
  return `${list((b) => b.unit) || 'requests'}: ${m.runs.toLocaleString('en-US')} ${names ? `${names} ` : ''}${m.runs === 1 ? 'run was' : 'runs were'} billed${billers.length ? ` by ${list((b) => b.by)}` : ''} at a ${range} multiplier (cost above: per-token prices of the same models).`;
}

/**
 * Money as people read it: 2 decimals with thousands separators ($1,248.00); below a cent, 4 decimals ($0.0042), and
 * `<$0.0001` for less (never a $0.00 that is not zero). Rounded half up on the exact decimal text, away from zero for
 * negatives. Null when unpriced.
 */
export function usd(m: Money): string | null {
  if (m.usd === null) return null;
  const neg = m.usd.startsWith('-');
  const [w, f = ''] = (neg ? m.usd.slice(1) : m.usd).split('.');
  const micro = BigInt(w! + f.padEnd(6, '0').slice(0, 6));
  const sign = neg ? '-' : '';
  if (micro === 0n) return '$0.00';
  if (micro < 10_000n) {
    const tenThousandths = (micro + 50n) / 100n;
    return tenThousandths === 0n ? `${sign}<$0.0001` : `${sign}$0.${tenThousandths.toString().padStart(4, '0')}`;
  }
  const cents = (micro + 5_000n) / 10_000n;
  return `${sign}$${(cents / 100n).toLocaleString('en-US')}.${(cents % 100n).toString().padStart(2, '0')}`;
}

export function costCell(r: ReportRow): string {
  if (r.usageNotReported) return NO_USAGE_TEXT;
  const c = usd(r.cost);
  if (c === null) return r.unpricedRuns > 0 ? 'unpriced' : r.noUsageRuns > 0 ? 'no usage yet' : '-';
  return r.unpricedRuns > 0 ? `${c} + ${r.unpricedRuns} unpriced` : c;
}

/**
 * One requested -> served pair as text; a run that got the model it asked for (or named none) shows the model once.
 * `clean` is applied to each ledger name (the terminal strips control characters from them).
 */
export function pairText(m: ReportRow['models'][number], arrow = '→', clean: (s: string) => string = (s) => s): string {
  const served = m.served === null ? '?' : clean(m.served);
  return m.requested === null || m.requested === m.served ? served : `${clean(m.requested)} ${arrow} ${served}`;
}

/** The busiest pairs, one per line, and how many more there are. */
export function modelsCell(r: ReportRow, max = 3, arrow = '→', clean?: (s: string) => string): string {
  if (r.models.length === 0) return '-';
  const shown = r.models.slice(0, max).map((m) => pairText(m, arrow, clean));
  return [...shown, ...(r.models.length > max ? [`+${r.models.length - max} more`] : [])].join('\n');
}

export function tokensCell(r: ReportRow): string {
  if (r.usageNotReported) return NO_USAGE_TEXT;
  return r.tokens.total.toLocaleString('en-US');
}

/** 1,234 -> 1.2k, 12,345,678 -> 12.3M: a terminal column; the exact count is in --json and --csv. */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  for (const [unit, size] of [
    ['B', 1e9],
    ['M', 1e6],
    ['k', 1e3],
  ] as const) {
    if (n >= size * 0.9995) return `${(n / size).toFixed(n >= size * 99.95 ? 0 : 1)}${unit}`;
  }
  return String(n);
}
