/**
 * What this data dir has pushed, so the next push sends only what changed: per local row (completion or dispatch, by
 * local id) its key and the fingerprint of what was sent. A SQLite file of its own in the data dir, never the ledger
 * (whose schema the observer owns). Written only after the team database committed a batch: a push cut short by a
 * crash, a kill or a lost server sends that batch again, and the team table's upsert makes the repeat a no-op.
 *
 * The state is for one ledger and one team database. Another ledger file (rebuilt after corruption: a new inode) or
 * another team database (its ledger_id) starts it over: every row is sent again, and no remote row is deleted for a
 * local row the state remembers but the new ledger lacks.
 */
import { statSync } from 'node:fs';
import type { SqlDriver } from '../observer/ledger/driver.js';
import { openBetterSqlite } from '../observer/ledger/driver-better-sqlite3.js';
import { ensureFile, restrictToUser } from '../io/files.js';

export type Pushed = { id: number; key: string; fp: number };

export type PushState = {
  /** Pushed rows of `kind` with local ids in (after, upTo]; upTo null: every id after `after`. Ids and fingerprints only. */
  range(kind: number, after: number, upTo: number | null): Omit<Pushed, 'key'>[];
  /** The keys rows were pushed under (for the few rows that changed or went). */
  keysOf(kind: number, ids: number[]): Map<number, string>;
  /** Records a committed batch: rows sent (new fingerprints) and rows deleted remotely. */
  record(kind: number, sent: Pushed[], deleted: number[]): void;
  close(): void;
};

/** The ledger file's identity: a rebuilt ledger is a new file with ids that mean other rows. */
export function ledgerIdentity(ledgerFile: string): string {
  const st = statSync(ledgerFile);
  return `${st.dev}:${st.ino}`;
}

export function openPushState(
  file: string,
  scope: { ledger: string; teamLedgerId: string; origin: string },
  fresh = false,
): PushState {
  for (const f of [`${file}-wal`, `${file}-shm`]) restrictToUser(f);
  ensureFile(file);
  restrictToUser(file);
  const db: SqlDriver = openBetterSqlite(file, { busyTimeoutMs: 5000 });
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec(`CREATE TABLE IF NOT EXISTS pushed (kind INTEGER NOT NULL, id INTEGER NOT NULL, key TEXT NOT NULL, fp INTEGER NOT NULL,
      PRIMARY KEY (kind, id)) WITHOUT ROWID`);
    db.exec('CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const want = JSON.stringify(scope);
    const have = db.prepare("SELECT value FROM meta WHERE name = 'scope'").get<{ value: string }>()?.value;
    if (fresh || have !== want) {
      db.transaction(() => {
        db.exec('DELETE FROM pushed');
        db.prepare("INSERT OR REPLACE INTO meta (name, value) VALUES ('scope', ?)").run(want);
      });
    }
  } catch (err) {
    db.close();
    throw err;
  }
  const put = db.prepare('INSERT OR REPLACE INTO pushed (kind, id, key, fp) VALUES (?, ?, ?, ?)');
  const drop = db.prepare('DELETE FROM pushed WHERE kind = ? AND id = ?');
  return {
    range: (kind, after, upTo) =>
      upTo === null
        ? db.prepare('SELECT id, fp FROM pushed WHERE kind = ? AND id > ? ORDER BY id').all<Pushed>(kind, after)
        : db
            .prepare('SELECT id, fp FROM pushed WHERE kind = ? AND id > ? AND id <= ? ORDER BY id')
            .all<Pushed>(kind, after, upTo),
    keysOf: (kind, ids) => {
      const out = new Map<number, string>();
      const one = db.prepare('SELECT key FROM pushed WHERE kind = ? AND id = ?');
      for (const id of ids) {
        const row = one.get<{ key: string }>(kind, id);
        if (row) out.set(id, row.key);
      }
      return out;
    },
    record: (kind, sent, deleted) =>
      db.transaction(() => {
        for (const r of sent) put.run(kind, r.id, r.key, r.fp);
        for (const id of deleted) drop.run(kind, id);
      }),
    close: () => db.close(),
  };
}
