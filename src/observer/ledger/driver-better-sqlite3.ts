/** better-sqlite3 12.x behind the ledger's driver interface (Node: CLI, hooks, pi). */
import { createRequire } from 'node:module';
import { statementCache, type OpenOptions, type SqlDriver, type SqlValue } from './driver.js';

type BetterStatement = {
  run(...p: SqlValue[]): { changes: number };
  all(...p: SqlValue[]): unknown[];
  get(...p: SqlValue[]): unknown;
};
type BetterDb = {
  exec(sql: string): void;
  prepare(sql: string): BetterStatement;
  transaction<F extends () => unknown>(fn: F): { immediate(): ReturnType<F> };
  close(): void;
};
type BetterCtor = new (
  path: string,
  opts: { timeout: number; readonly?: boolean; fileMustExist?: boolean },
) => BetterDb;

export function openBetterSqlite(path: string, opts: OpenOptions): SqlDriver {
  // Loaded lazily: dist bundles keep better-sqlite3 external, and a Bun process must never evaluate it.
  const Database = createRequire(import.meta.url)('better-sqlite3') as BetterCtor;
  const db = new Database(path, {
    timeout: opts.busyTimeoutMs,
    readonly: opts.readonly ?? false,
    fileMustExist: opts.readonly ?? false,
  });
  return {
    kind: 'better-sqlite3',
    exec: (sql) => db.exec(sql),
    prepare: statementCache((sql) => {
      const s = db.prepare(sql);
      return {
        run: (...p) => s.run(...p),
        all: <T>(...p: SqlValue[]) => s.all(...p) as T[],
        get: <T>(...p: SqlValue[]) => s.get(...p) as T | undefined,
      };
    }),
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate() as T,
    close: () => db.close(),
  };
}
