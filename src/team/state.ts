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
 */
import { statSync } from 'node:fs';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { openBetterSqlite } from '../observer/ledger/driver-better-sqlite3.js';
import { ensureFile, restrictToUser } from '../io/files.js';

/** Where a push stands: the last change number sent of each stream, and the prices behind the savings sent. */
type PushMarks = { completions: number; dispatches: number; deleted: number; pricing: string | null };
export type MarkName = Exclude<keyof PushMarks, 'pricing'>;

export type PushState = {
  readonly marks: PushMarks;
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
    }
  } catch (err) {
    db.close();
    throw err;
  }
  const set = (column: MarkName | 'pricing') => db.prepare(`UPDATE marks SET ${column} = ? WHERE target = ?`);
  const setMark = { completions: set('completions'), dispatches: set('dispatches'), deleted: set('deleted') };
  const setPricing = set('pricing');
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
    close: () => db.close(),
  };
}
