/** Human cells shared by the terminal table and CSV: one wording for unpriced, Cursor, savings. */
import type { Money, ReportRow } from '../contracts/report.js';

export const CURSOR_NO_USAGE = 'usage not reported by Cursor';

export function usd(m: Money, digits = 4): string | null {
  if (m.usd === null) return null;
  const [w, f = ''] = m.usd.split('.');
  const neg = w!.startsWith('-');
  // Round half up on the exact decimal text, away from zero for negatives.
  let v = BigInt((neg ? w!.slice(1) : w!) + f.padEnd(6, '0'));
  const drop = 10n ** BigInt(6 - digits);
  v = (v + drop / 2n) / drop;
  const s = v.toString().padStart(digits + 1, '0');
  return `${neg ? '-' : ''}$${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

export function costCell(r: ReportRow): string {
  if (r.usageNotReported) return CURSOR_NO_USAGE;
  const c = usd(r.cost);
  if (c === null) return r.unpricedRuns > 0 ? 'unpriced' : r.noUsageRuns > 0 ? 'no usage yet' : '-';
  return r.unpricedRuns > 0 ? `${c} + ${r.unpricedRuns} unpriced` : c;
}

export function modelsCell(r: ReportRow): string {
  if (r.models.length === 0) return '-';
  return r.models
    .slice(0, 2)
    .map((m) => (m.requested === null || m.requested === m.served ? `${m.served ?? '?'}` : `${m.requested} -> ${m.served ?? '?'}`))
    .join(', ') + (r.models.length > 2 ? ', …' : '');
}

export function tokensCell(r: ReportRow): string {
  if (r.usageNotReported) return CURSOR_NO_USAGE;
  return r.tokens.total.toLocaleString('en-US');
}
