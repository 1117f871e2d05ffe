/**
 * The SQL for a report's scope (harness, session, project, a time range), shared by the report's sources (query.ts)
 * and its whole-usage line (context.ts) so both count the same rows.
 */
import { withoutTrailingSlashes } from '../io/text.js';
import type { SqlValue } from '../observer/ledger/driver.js';

/** The scope a report reads (a ReportQuery has these fields). */
export type ScopeFilters = { harness?: string | null; session?: string | null; project?: string | null };

/** Appends the harness, session and project conditions (a project matches itself and every folder under it). */
export function scopeFilters(q: ScopeFilters, parts: string[], params: SqlValue[]): void {
  if (q.harness) parts.push('harness = ?'), params.push(q.harness);
  if (q.session) parts.push('session_id = ?'), params.push(q.session);
  if (q.project) {
    const p = withoutTrailingSlashes(q.project);
    parts.push('(project = ? OR substr(project, 1, ?) = ?)');
    params.push(p, p.length + 1, `${p}/`);
  }
}

/** A WHERE clause (or '') for the scope and `timeCol` in [from, to). */
export function scopeWhere(
  q: ScopeFilters,
  timeCol: string,
  from: number | null,
  to: number | null,
): { sql: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (from != null) parts.push(`${timeCol} >= ?`), params.push(from);
  if (to != null) parts.push(`${timeCol} < ?`), params.push(to);
  scopeFilters(q, parts, params);
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}
