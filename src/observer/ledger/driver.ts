/**
 * The few SQLite operations the ledger needs, behind one interface, so the same file and schema serve Node
 * (better-sqlite3 12.x) and Bun (bun:sqlite: OpenCode 1.18.33 runs plugins inside Bun, where the native addon may not
 * load). Parameters are positional (`?`) only: the two drivers disagree on named-parameter prefixes.
 * Sums that may pass 2^53 are selected as TEXT and turned into bigint by the caller, which works the same in both.
 */
export type SqlValue = string | number | bigint | null;

export interface Statement {
  run(...params: SqlValue[]): { changes: number };
  all<T = Record<string, unknown>>(...params: SqlValue[]): T[];
  get<T = Record<string, unknown>>(...params: SqlValue[]): T | undefined;
}

export interface SqlDriver {
  readonly kind: 'better-sqlite3' | 'bun:sqlite';
  exec(sql: string): void;
  prepare(sql: string): Statement;
  /** Runs fn inside BEGIN IMMEDIATE … COMMIT (rolled back if it throws): writers queue on busy_timeout, never deadlock. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export type OpenOptions = { busyTimeoutMs: number; readonly?: boolean };

/** Prepared statements are reused per SQL text: both drivers compile each query once per connection. */
export function statementCache(make: (sql: string) => Statement): (sql: string) => Statement {
  const cache = new Map<string, Statement>();
  return (sql) => {
    let st = cache.get(sql);
    if (!st) {
      st = make(sql);
      cache.set(sql, st);
    }
    return st;
  };
}
