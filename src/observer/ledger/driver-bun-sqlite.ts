/**
 * bun:sqlite behind the ledger's driver interface. OpenCode 1.18.33 loads plugins inside Bun; bun:sqlite is built in
 * there, so the plugin never needs the native better-sqlite3 addon. Same file format, same schema, same WAL.
 */
import { createRequire } from 'node:module';
import { statementCache, type OpenOptions, type SqlDriver, type SqlValue } from './driver.js';

type BunStatement = {
  run(...p: SqlValue[]): { changes: number } | undefined;
  all(...p: SqlValue[]): unknown[];
  get(...p: SqlValue[]): unknown;
};
type BunDb = {
  exec(sql: string): void;
  prepare(sql: string): BunStatement;
  transaction<F extends () => unknown>(fn: F): { immediate(): ReturnType<F> };
  close(): void;
};
type BunCtor = new (path: string, opts: { create?: boolean; readonly?: boolean; readwrite?: boolean }) => BunDb;

export function openBunSqlite(path: string, opts: OpenOptions): SqlDriver {
  const { Database } = createRequire(import.meta.url)('bun:sqlite') as { Database: BunCtor };
  const db = opts.readonly
    ? new Database(path, { readonly: true })
    : new Database(path, { create: true, readwrite: true });
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
  return {
    kind: 'bun:sqlite',
    exec: (sql) => db.exec(sql),
    prepare: statementCache((sql) => {
      const s = db.prepare(sql);
      return {
        // Bun returns undefined from run() on builds before 1.1.14; callers only need the change count.
        run: (...p) => s.run(...p) ?? { changes: 0 },
        all: <T>(...p: SqlValue[]) => s.all(...p) as T[],
        get: <T>(...p: SqlValue[]) => (s.get(...p) ?? undefined) as T | undefined,
      };
    }),
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate() as T,
    close: () => db.close(),
  };
}
