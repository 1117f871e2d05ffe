/**
 * How far this data dir has pushed, per team database: the last change number (the ledger's `rev`, ledger migration 8)
 * of completions, of dispatches and of deleted rows a committed batch covered, and the prices the pushed savings were
 * priced with. The next push reads only rows changed after those numbers. A SQLite file of its own in the data dir,
 * never the ledger (whose schema the observer owns). Written only after the team database committed a batch: a push
 * cut short by a crash, a kill or a lost server sends that batch again, and the team table's upsert makes the repeat a
 * no-op.
 *
 * One entry per team database (its ledger_id), so pushing to two keeps two positions. The entry holds its scope: another
 * ledger file (rebuilt after corruption: a new inode, its ids and change numbers mean other rows), another origin or
 * another person label starts it over: every row is sent again, landing on the same keys.
 *
 * Rows the server refused (set aside, issue 28: one bad row must not stop every push) are kept here per team database
 * with the server's error, for `push --status`; the marks move past them, so they are tried again only when they change
 * locally (a new change number), or by `--full`. A row that later goes in is taken off the list.
 */
import { statSync } from 'node:fs';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { openBetterSqlite } from '../observer/ledger/driver-better-sqlite3.js';
import { ensureFile, restrictToUser } from '../io/files.js';

/** Where a push stands: the last change number sent of each stream, and the prices behind the savings sent. */
type PushMarks = { completions: number; dispatches: number; deleted: number; pricing: string | null };
export type MarkName = Exclude<keyof PushMarks, 'pricing'>;

/** A row the server refused: its kind (0 completions, 1 dispatches), key, change number, the error, when (epoch ms). */
export type SetAsideRow = { kind: number; key: string; rev: number; error: string; at: number };

export type PushState = {
  readonly marks: PushMarks;
  /** Records a row the server refused (replacing an earlier refusal of the same key). */
  setAside(row: SetAsideRow): void;
  /** Takes rows that went in off the set-aside list (a no-op while the list is empty). */
  clearAside(kind: number, keys: readonly string[]): void;
  /** Whether this row, at this change number, was set aside already (a batch cut short is sent again without it). */
  refusedAsIs(kind: number, key: string, rev: number): boolean;
  /** How many rows are set aside, and the latest few. */
  asideSummary(latest?: number): { rows: number; latest: SetAsideRow[] };
  /** Records a committed batch: `name` has been sent up to change number `rev`. */
  advance(name: MarkName, rev: number): void;
  setPricing(signature: string): void;
  close(): void;
};

/** The ledger file's identity: a rebuilt ledger is a new file with ids that mean other rows. */
export function ledgerIdentity(ledgerFile: string): string {
  const st = statSync(ledgerFile);
  return `${st.dev}:${st.ino}`;
}

export function openPushState(
  file: string,
  target: string,
  scope: { ledger: string; origin: string; user: string },
  fresh = false,
): PushState {
  for (const f of [`${file}-wal`, `${file}-shm`]) restrictToUser(f);
  ensureFile(file);
  restrictToUser(file);
  const db: SqlDriver = openBetterSqlite(file, { busyTimeoutMs: 5000 });
  const marks: PushMarks = { completions: 0, dispatches: 0, deleted: 0, pricing: null };
  const want = JSON.stringify(scope);
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    // The state of tiergates that compared every row by fingerprint: its rows mean nothing to a change counter.
    db.exec('DROP TABLE IF EXISTS pushed');
    db.exec('DROP TABLE IF EXISTS meta');
    db.exec(`CREATE TABLE IF NOT EXISTS marks (target TEXT PRIMARY KEY, scope TEXT NOT NULL, completions INTEGER NOT NULL,
      dispatches INTEGER NOT NULL, deleted INTEGER NOT NULL, pricing TEXT) WITHOUT ROWID`);
    db.exec(`CREATE TABLE IF NOT EXISTS set_aside (target TEXT NOT NULL, kind INTEGER NOT NULL, key TEXT NOT NULL,
      rev INTEGER NOT NULL, error TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (target, kind, key)) WITHOUT ROWID`);
    const have = db
      .prepare('SELECT scope, completions, dispatches, deleted, pricing FROM marks WHERE target = ?')
      .get<PushMarks & { scope: string }>(target);
    if (have && have.scope === want && !fresh) {
      marks.completions = have.completions;
      marks.dispatches = have.dispatches;
      marks.deleted = have.deleted;
      marks.pricing = have.pricing;
    } else {
      db.prepare(
        'INSERT OR REPLACE INTO marks (target, scope, completions, dispatches, deleted, pricing) VALUES (?, ?, 0, 0, 0, NULL)',
      ).run(target, want);
      db.prepare('DELETE FROM set_aside WHERE target = ?').run(target);
    }
  } catch (err) {
    db.close();
    throw err;
  }
  const set = (column: MarkName | 'pricing') => db.prepare(`UPDATE marks SET ${column} = ? WHERE target = ?`);
  const setMark = { completions: set('completions'), dispatches: set('dispatches'), deleted: set('deleted') };
  const setPricing = set('pricing');
  const countAside = db.prepare('SELECT COUNT(*) AS n FROM set_aside WHERE target = ?');
  let aside = countAside.get<{ n: number }>(target)?.n ?? 0;
  const putAside = db.prepare(
    'INSERT OR REPLACE INTO set_aside (target, kind, key, rev, error, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const sameRev = db.prepare('SELECT 1 AS x FROM set_aside WHERE target = ? AND kind = ? AND key = ? AND rev = ?');
  const takeBack = db.prepare('DELETE FROM set_aside WHERE target = ? AND kind = ? AND key = ?');
  const latestAside = db.prepare(
    'SELECT kind, key, rev, error, at FROM set_aside WHERE target = ? ORDER BY at DESC, rev DESC LIMIT ?',
  );
  return {
    marks,
    advance: (name, rev) => {
      if (rev <= marks[name]) return;
      marks[name] = rev;
      setMark[name].run(rev, target);
    },
    setPricing: (signature) => {
      marks.pricing = signature;
      setPricing.run(signature, target);
    },
    setAside: (r) => {
      putAside.run(target, r.kind, r.key, r.rev, r.error, r.at);
      aside = countAside.get<{ n: number }>(target)?.n ?? 0;
    },
    clearAside: (kind, keys) => {
      if (aside === 0) return;
      db.transaction(() => {
        for (const k of keys) takeBack.run(target, kind, k);
      });
      aside = countAside.get<{ n: number }>(target)?.n ?? 0;
    },
    refusedAsIs: (kind, key, rev) => aside > 0 && sameRev.get(target, kind, key, rev) !== undefined,
    asideSummary: (latest = 5) => ({ rows: aside, latest: latestAside.all<SetAsideRow>(target, latest) }),
    close: () => db.close(),
  };
}
