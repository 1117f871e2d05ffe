/** What a run left under TIERGATE_HOME, read back for assertions (tests only): ledger rows and the diagnostics log. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The rows of sql on the run's ledger, opened read-only; none when the run made no ledger. */
export function ledgerRows(tiergateHome: string, sql: string): Record<string, unknown>[] {
  const file = join(tiergateHome, 'data', 'ledger.sqlite');
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** The diagnostics log as text; '' when there is none. */
export function diagnosticsText(tiergateHome: string): string {
  const f = join(tiergateHome, 'data', 'diagnostics.log');
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
}
