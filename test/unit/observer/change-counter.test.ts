/**
 * The ledger's change counter (migration 8), which `tiergate push` reads instead of the whole ledger: every insert and
 * update of a completion or dispatch takes the next number, a dispatch update that changes what its completion pushes
 * renumbers that completion, a deletion numbers the deleted key, and rows from before the migration read as their id
 * (below every later number), without a backfill. The rollups still hold exactly the completions' sums.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openLedger } from '../../../src/observer/ledger/open.js';
import { openBetterSqlite } from '../../../src/observer/ledger/driver-better-sqlite3.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { MIGRATIONS } from '../../../src/observer/ledger/schema.js';
import { tempHome } from './helpers.js';

const REV = (db: SqlDriver, table: string) =>
  Object.fromEntries(
    db
      .prepare(`SELECT dedupe_key AS k, COALESCE(rev, id) AS r FROM ${table} ORDER BY id`)
      .all<{ k: string; r: number }>()
      .map((x) => [x.k, x.r]),
  );
const seq = (db: SqlDriver) => db.prepare('SELECT n FROM change_seq').get<{ n: number }>()!.n;

const insertCompletion = (db: SqlDriver, key: string, harness = 'claude') =>
  db
    .prepare(`INSERT INTO completions (dedupe_key, harness, served_model, status, input, output, cost_pico, ended_at, day, usage_source)
      VALUES (?, ?, 'claude-haiku-4-5', 'pending', 10, 1, 5, 1, '2026-12-01', 't')`)
    .run(key, harness);

/** The rollup's runs and cost, and the same summed from the completions: the triggers kept them equal. */
function rollupMatches(db: SqlDriver): void {
  const rollup = db
    .prepare('SELECT SUM(runs) AS runs, SUM(cost_pico) AS cost, SUM(completed) AS ok FROM completion_rollup_global')
    .get();
  const raw = db
    .prepare("SELECT COUNT(*) AS runs, SUM(COALESCE(cost_pico, 0)) AS cost, SUM(status = 'ok') AS ok FROM completions")
    .get();
  expect(rollup).toEqual(raw);
}

describe('ledger change counter (migration 8)', () => {
  it('numbers every insert, update and deletion in order; a dispatch change renumbers its completion', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      insertCompletion(db, 'a');
      insertCompletion(db, 'b');
      db.prepare(
        `INSERT INTO dispatches (dedupe_key, harness, at, action, source) VALUES ('d', 'claude', 1, 'allow', 's')`,
      ).run();
      const first = { ...REV(db, 'completions'), ...REV(db, 'dispatches') };
      expect(new Set(Object.values(first)).size).toBe(3);
      expect(first.a! < first.b! && first.b! < first.d!).toBe(true);

      // An update of a completion: a number above every other.
      db.prepare("UPDATE completions SET status = 'ok' WHERE dedupe_key = 'a'").run();
      expect(REV(db, 'completions').a).toBe(seq(db));
      // Joining: the dispatch names completion b, which then pushes as dispatched: both renumbered.
      const before = seq(db);
      db.prepare("UPDATE dispatches SET completion_id = (SELECT id FROM completions WHERE dedupe_key = 'b')").run();
      db.prepare("UPDATE completions SET dispatch_id = (SELECT id FROM dispatches) WHERE dedupe_key = 'b'").run();
      expect(REV(db, 'completions').b).toBeGreaterThan(before);
      expect(REV(db, 'dispatches').d).toBeGreaterThan(before);
      // A correction found ignored (a dispatch column only): completion b is renumbered too, a is not.
      const { a, b } = REV(db, 'completions');
      db.prepare("UPDATE dispatches SET action = 'correct', enforcement = 'ignored'").run();
      expect(REV(db, 'completions').b).toBeGreaterThan(b!);
      expect(REV(db, 'completions').a).toBe(a);
      // A dispatch update that changes nothing a completion pushes leaves it alone.
      const b2 = REV(db, 'completions').b;
      db.prepare("UPDATE dispatches SET child_agent_id = 'x'").run();
      expect(REV(db, 'completions').b).toBe(b2);
      // Deleted: the key is numbered, the rollups lose the row.
      db.prepare("DELETE FROM completions WHERE dedupe_key = 'a'").run();
      expect(db.prepare('SELECT rev, kind, key FROM deleted_rows').all()).toEqual([
        { rev: seq(db), kind: 0, key: 'a' },
      ]);
      rollupMatches(db);
      // Numbers are unique across both tables and the deletions.
      const all = [
        ...Object.values(REV(db, 'completions')),
        ...Object.values(REV(db, 'dispatches')),
        ...db
          .prepare('SELECT rev FROM deleted_rows')
          .all<{ rev: number }>()
          .map((r) => r.rev),
      ];
      expect(new Set(all).size).toBe(all.length);
      // The push reads changed rows through the index, never the whole table.
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT id FROM completions WHERE COALESCE(rev, id) > ? ORDER BY COALESCE(rev, id)')
        .all<{ detail: string }>(0)
        .map((r) => r.detail)
        .join(' ');
      expect(plan).toMatch(/USING (COVERING )?INDEX completions_rev/);
    } finally {
      db.close();
    }
  });

  it('a number never comes back, even when the row holding the highest is deleted', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      insertCompletion(db, 'a');
      insertCompletion(db, 'b');
      const top = REV(db, 'completions').b!;
      db.prepare("DELETE FROM completions WHERE dedupe_key = 'b'").run();
      insertCompletion(db, 'c');
      expect(REV(db, 'completions').c).toBeGreaterThan(top + 1);
    } finally {
      db.close();
    }
  });

  it('upgrades a schema-7 ledger: old rows read as their id, below every later number; rollups kept', () => {
    const { dir } = tempHome();
    const db = openBetterSqlite(join(dir, 'v7.sqlite'), { busyTimeoutMs: 1000 });
    try {
      expect(migrate(db, MIGRATIONS.slice(0, 7))).toBe(7);
      for (let i = 0; i < 5; i++) insertCompletion(db, `old${i}`);
      expect(migrate(db)).toBe(MIGRATIONS.length - 7);
      expect(db.prepare('SELECT COUNT(*) AS n FROM completions WHERE rev IS NOT NULL').get()).toEqual({ n: 0 });
      expect(Object.values(REV(db, 'completions'))).toEqual([1, 2, 3, 4, 5]);
      db.prepare("UPDATE completions SET status = 'ok' WHERE dedupe_key = 'old0'").run();
      insertCompletion(db, 'new');
      const after = REV(db, 'completions');
      expect(after.old0).toBeGreaterThan(5);
      expect(after.new).toBeGreaterThan(after.old0!);
      rollupMatches(db);
    } finally {
      db.close();
    }
  });
});
