/**
 * The scan stores parsed files in batched transactions (~4,000 rows each); a batch that fails is retried file by file so
 * one bad file fails alone. The failure is a real SQLite one: a TEMP trigger on this connection aborts every insert of
 * one session's requests, wherever in a batch that file's rows fall.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { paths } from '../../../src/io/paths.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { scanTranscripts, type ScanRoot } from '../../../src/collect/scan.js';
import { tempHome, testPricer, writeLines } from '../observer/helpers.js';

const BAD = 'bad-session';
const POISON = 'poisoned row for the test';

/** One Claude session transcript of `requests` distinct priced responses, alone in its own root (roots scan in order). */
function session(dir: string, sessionId: string, requests: number): { root: ScanRoot; path: string } {
  const project = join(dir, 'claude', sessionId, 'projects', '-work-demo');
  mkdirSync(project, { recursive: true });
  const path = join(project, `${sessionId}.jsonl`);
  writeLines(
    path,
    Array.from({ length: requests }, (_, i) => ({
      type: 'assistant',
      sessionId,
      cwd: '/work/demo',
      isSidechain: false,
      requestId: `req_${sessionId}_${i}`,
      timestamp: new Date(Date.parse('2026-12-02T14:00:00Z') + i * 1000).toISOString(),
      message: {
        id: `msg_${sessionId}_${i}`,
        role: 'assistant',
        model: 'claude-haiku-4-5',
        stop_reason: 'end_turn',
        content: [],
        usage: { input_tokens: 100 + i, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    })),
  );
  return { root: { harness: 'claude', dir: join(dir, 'claude', sessionId, 'projects') }, path };
}

function poison(db: SqlDriver): void {
  db.exec(`CREATE TEMP TRIGGER poison BEFORE INSERT ON main.requests WHEN NEW.session_id = '${BAD}'
           BEGIN SELECT RAISE(ABORT, '${POISON}'); END`);
}

const requestsBySession = (db: SqlDriver): Record<string, number> =>
  Object.fromEntries(
    db
      .prepare('SELECT session_id AS s, COUNT(*) AS n FROM requests GROUP BY session_id')
      .all<{ s: string; n: number }>()
      .map((r) => [r.s, r.n]),
  );
const scannedPaths = (db: SqlDriver): string[] =>
  db
    .prepare('SELECT path FROM scanned_files ORDER BY path')
    .all<{ path: string }>()
    .map((r) => r.path);

function diagnostics(env: Record<string, string>): Record<string, unknown>[] {
  const file = paths(env).diagnostics;
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
}

describe('scan: a failing batch is retried file by file', () => {
  it('one bad file in the middle of a batch fails alone; every other file of the batch is stored', () => {
    const { dir, env } = tempHome();
    const files = ['s1', 's2', BAD, 's4', 's5'].map((id) => ({ id, ...session(dir, id, 3) }));
    const bad = files.find((f) => f.id === BAD)!;
    const db = openLedger(env);
    try {
      poison(db);
      const tx = vi.spyOn(db, 'transaction');
      const s = scanTranscripts(
        db,
        files.map((f) => f.root),
        testPricer(),
        {},
        env,
      );
      expect(s).toMatchObject({ files: 5, parsed: 4, failed: 1, requestsSeen: 12, requestsNew: 12 });
      // One batch (15 requests + 5 files < 4,000 rows) that failed, one retry per file, then the reconcile.
      expect(tx).toHaveBeenCalledTimes(1 + 5 + 1);
      expect(requestsBySession(db)).toEqual({ s1: 3, s2: 3, s4: 3, s5: 3 });
      // The bad file is not remembered as scanned, so the next scan tries it again.
      expect(scannedPaths(db)).toEqual(
        files
          .filter((f) => f !== bad)
          .map((f) => f.path)
          .sort(),
      );
      const warned = diagnostics(env).filter((d) => d.where === 'observer:scan');
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ level: 'warn', harness: 'claude', path: bad.path });
      expect(String(warned[0]!.message)).toContain(POISON);

      // With the fault gone, a rescan stores the bad file and leaves the four good ones unopened.
      db.exec('DROP TRIGGER temp.poison');
      const again = scanTranscripts(
        db,
        files.map((f) => f.root),
        testPricer(),
        {},
        env,
      );
      expect(again).toMatchObject({ parsed: 1, unchanged: 4, failed: 0, requestsNew: 3 });
      expect(requestsBySession(db)).toEqual({ s1: 3, s2: 3, [BAD]: 3, s4: 3, s5: 3 });
      expect(scannedPaths(db)).toHaveLength(5);
    } finally {
      db.close();
    }
  });

  it('a committed batch stays committed; only the failing later batch falls back to file by file', () => {
    const { dir, env } = tempHome();
    // 2,000 + 1 rows each: the batch closes after b (4,002 rows ≥ 4,000); the bad file and d make the second batch.
    const files = [session(dir, 'a', 2000), session(dir, 'b', 2000), session(dir, BAD, 5), session(dir, 'd', 5)];
    const db = openLedger(env);
    try {
      poison(db);
      const tx = vi.spyOn(db, 'transaction');
      const s = scanTranscripts(
        db,
        files.map((f) => f.root),
        testPricer(),
        {},
        env,
      );
      expect(s).toMatchObject({ files: 4, parsed: 3, failed: 1, requestsNew: 4005 });
      // Batch [a, b] committed once; batch [bad, d] failed and was retried as two transactions; then the reconcile.
      expect(tx).toHaveBeenCalledTimes(1 + 1 + 2 + 1);
      expect(requestsBySession(db)).toEqual({ a: 2000, b: 2000, d: 5 });
      expect(
        diagnostics(env)
          .filter((d) => d.where === 'observer:scan')
          .map((d) => d.path),
      ).toEqual([files[2]!.path]);
    } finally {
      db.close();
    }
  });
});
