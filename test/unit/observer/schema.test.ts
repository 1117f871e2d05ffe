import { statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openLedger, schemaVersion } from '../../../src/observer/ledger/open.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/observer/ledger/schema.js';
import { paths } from '../../../src/io/paths.js';
import { openBetterSqlite } from '../../../src/observer/ledger/driver-better-sqlite3.js';
import { reconcilePending } from '../../../src/collect/drain.js';
import { recordCompletion, type CompletionRow } from '../../../src/observer/ledger/store.js';
import { checkEnforcement } from '../../../src/observer/enforcement.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { queryReport } from '../../../src/report/query.js';
import { tempHome } from './helpers.js';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('ledger schema and file', () => {
  it('creates every table at the current schema version, in WAL mode', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all<{ name: string }>()
        .map((r) => r.name);
      expect(tables).toEqual(
        expect.arrayContaining([
          'sessions',
          'dispatches',
          'completions',
          'requests',
          'diagnostics',
          'schema_version',
          'scanned_files',
        ]),
      );
      expect(db.prepare('PRAGMA journal_mode').get<{ journal_mode: string }>()?.journal_mode).toBe('wal');
      expect(db.prepare('PRAGMA busy_timeout').get<{ timeout: number }>()?.timeout).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('keeps the ledger and its -wal/-shm files user-only (0600)', () => {
    const { env } = tempHome();
    const file = paths(env).ledger;
    const db = openLedger(env);
    try {
      db.prepare('INSERT INTO diagnostics (at, level, origin, message) VALUES (?, ?, ?, ?)').run(1, 'info', 't', 'x');
      expect(mode(file)).toBe(0o600);
      expect(existsSync(`${file}-wal`)).toBe(true);
      expect(mode(`${file}-wal`)).toBe(0o600);
      expect(mode(`${file}-shm`)).toBe(0o600);
      expect(mode(paths(env).data)).toBe(0o700);
    } finally {
      db.close();
    }
  });

  it('applies each migration once, and a reopen applies nothing', () => {
    const { env } = tempHome();
    openLedger(env).close();
    const db = openLedger(env);
    try {
      expect(migrate(db)).toBe(0);
      const rows = db.prepare('SELECT version FROM schema_version ORDER BY version').all<{ version: number }>();
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    } finally {
      db.close();
    }
  });

  it('upgrades an older file in place and keeps its rows', () => {
    const { dir } = tempHome();
    const file = join(dir, 'old.sqlite');
    const db = openLedger({}, { file });
    try {
      db.prepare('INSERT INTO diagnostics (at, level, origin, message) VALUES (?, ?, ?, ?)').run(
        1,
        'info',
        't',
        'kept',
      );
      const next = [...MIGRATIONS, 'ALTER TABLE diagnostics ADD COLUMN extra TEXT'];
      expect(migrate(db, next)).toBe(1);
      expect(schemaVersion(db)).toBe(MIGRATIONS.length + 1);
      expect(db.prepare('SELECT message, extra FROM diagnostics').all()).toEqual([{ message: 'kept', extra: null }]);
    } finally {
      db.close();
    }
  });

  it('upgrades a schema-4 ledger with rows: rows and rollups kept, the session rollup filled from them and kept after, the late-flush pass reads only pending rows with a transcript', () => {
    const { dir } = tempHome();
    const db = openBetterSqlite(join(dir, 'v4.sqlite'), { busyTimeoutMs: 1000 });
    try {
      expect(migrate(db, MIGRATIONS.slice(0, 4))).toBe(4);
      const row = (agentId: string, status: CompletionRow['status'], transcriptPath: string | null): CompletionRow => ({
        harness: 'claude',
        sessionId: 'S1',
        callId: null,
        agentId,
        subagentType: 'Explore',
        project: '/w',
        requestedModel: null,
        servedModel: status === 'ok' ? 'claude-haiku-4-5' : null,
        status,
        startedAt: 1,
        endedAt: Date.now(),
        usage:
          status === 'ok'
            ? { input: 10, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 }
            : null,
        outcome: { result: null, verified: null, escalationFrom: null },
        usageSource: 't',
        transcriptPath,
        incomplete: false,
        fallbackKey: agentId,
      });
      db.transaction(() => {
        recordCompletion(db, row('done', 'ok', null));
        for (let i = 0; i < 50; i++) recordCompletion(db, row(`nopath${i}`, 'pending', null));
        recordCompletion(db, row('gone', 'pending', join(dir, 'no-such-transcript.jsonl')));
      });
      const before = db.prepare('SELECT status, COUNT(*) AS n FROM completions GROUP BY status ORDER BY status').all();
      const rollup = db
        .prepare('SELECT SUM(runs) AS runs, SUM(pending) AS pending, SUM(input) AS input FROM completion_rollup')
        .get();

      expect(migrate(db)).toBe(MIGRATIONS.length - 4);
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      expect(db.prepare('SELECT status, COUNT(*) AS n FROM completions GROUP BY status ORDER BY status').all()).toEqual(
        before,
      );
      expect(
        db
          .prepare('SELECT SUM(runs) AS runs, SUM(pending) AS pending, SUM(input) AS input FROM completion_rollup')
          .get(),
      ).toEqual({ runs: 52, pending: 51, input: 10 });
      expect(rollup).toEqual({ runs: 52, pending: 51, input: 10 });
      const indexes = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'completions'")
        .all<{ name: string }>()
        .map((r) => r.name);
      expect(indexes).toContain('completions_pending_reread');
      expect(indexes).not.toContain('completions_pending');
      expect(
        db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT id FROM completions WHERE status = 'pending' AND transcript_path IS NOT NULL`,
          )
          .all<{ detail: string }>()
          .map((r) => r.detail)
          .join(' '),
      ).toMatch(/completions_pending_reread/);
      const sessionRollup = () =>
        db
          .prepare(`SELECT session_id, served_model, SUM(runs) AS runs, SUM(pending) AS pending, SUM(input) AS input,
          CAST(SUM(cost_pico) AS TEXT) AS cost FROM session_rollup GROUP BY 1, 2 HAVING SUM(runs) <> 0 ORDER BY 1, 2`)
          .all();
      const fromRows = () =>
        db
          .prepare(`SELECT COALESCE(session_id, '') AS session_id, COALESCE(served_model, '') AS served_model, COUNT(*) AS runs,
          SUM(status = 'pending') AS pending, SUM(COALESCE(input, 0)) AS input, CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS cost
          FROM completions GROUP BY 1, 2 ORDER BY 1, 2`)
          .all();
      expect(sessionRollup()).toEqual([
        { session_id: 'S1', served_model: '', runs: 51, pending: 51, input: 0, cost: '0' },
        { session_id: 'S1', served_model: 'claude-haiku-4-5', runs: 1, pending: 0, input: 10, cost: '0' },
      ]);
      // Kept by its triggers from then on: a new session, a pending run settled in place, a deletion.
      db.transaction(() => {
        recordCompletion(db, { ...row('later', 'ok', null), sessionId: 'S2' });
        db.prepare(
          `UPDATE completions SET status = 'ok', served_model = 'claude-opus-5-5', input = 7, cost_pico = 123 WHERE agent_id = 'nopath0'`,
        ).run();
        db.prepare(`DELETE FROM completions WHERE agent_id = 'nopath1'`).run();
      });
      expect(sessionRollup()).toEqual(fromRows());
      expect(sessionRollup()).toHaveLength(4);
      // The unreadable transcript stays pending (not given up before 7 days); nothing settles.
      expect(db.transaction(() => reconcilePending(db))).toBe(0);
      expect(db.prepare(`SELECT COUNT(*) AS n FROM completions WHERE status = 'pending'`).get()).toEqual({ n: 49 });
    } finally {
      db.close();
    }
  });

  it('upgrades a schema-6 ledger to 7 (enforcement): old rows kept and unchecked, old joined corrections checked by the next pass', () => {
    const { dir, env } = tempHome();
    const db = openBetterSqlite(join(dir, 'v6.sqlite'), { busyTimeoutMs: 1000 });
    try {
      expect(migrate(db, MIGRATIONS.slice(0, 6))).toBe(6);
      db.transaction(() => {
        db.prepare(`INSERT INTO completions (id, dedupe_key, harness, served_model, status, ended_at, day, usage_source)
          VALUES (1, 'c1', 'claude', 'claude-opus-5-5', 'ok', 1, '2026-12-02', 't')`).run();
        db.prepare(`INSERT INTO dispatches (dedupe_key, harness, call_id, at, action, requested_model, effective_model, completion_id, source)
          VALUES ('d1', 'claude', 't1', 1, 'correct', 'opus', 'haiku', 1, 'spool'), ('d2', 'claude', 't2', 1, 'allow', 'haiku', 'haiku', NULL, 'spool')`).run();
      });
      expect(migrate(db)).toBe(MIGRATIONS.length - 6);
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      expect(db.prepare('SELECT call_id, enforcement FROM dispatches ORDER BY call_id').all()).toEqual([
        { call_id: 't1', enforcement: null },
        { call_id: 't2', enforcement: null },
      ]);
      const indexes = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'dispatches'")
        .all<{ name: string }>()
        .map((r) => r.name);
      expect(indexes).toEqual(
        expect.arrayContaining(['dispatches_enforcement_todo', 'dispatches_ignored', 'dispatches_corrections']),
      );
      expect(checkEnforcement(db, loadPricer(env).identify!, env)).toEqual({ checked: 1, ignored: 1 });
      expect(db.prepare('SELECT call_id, enforcement FROM dispatches ORDER BY call_id').all()).toEqual([
        { call_id: 't1', enforcement: 'ignored' },
        { call_id: 't2', enforcement: null },
      ]);
    } finally {
      db.close();
    }
  });

  it('upgrades a schema-10 ledger to 11: the rollups lose cursor_runs, keep their sums and stay kept by triggers; the report still reads runs without usage', () => {
    const { dir } = tempHome();
    const db = openBetterSqlite(join(dir, 'v10.sqlite'), { busyTimeoutMs: 1000 });
    try {
      expect(migrate(db, MIGRATIONS.slice(0, 10))).toBe(10);
      const row = (harness: string, agentId: string, input: number | null): CompletionRow => ({
        harness: harness as CompletionRow['harness'],
        sessionId: `S-${harness}`,
        callId: null,
        agentId,
        subagentType: 'Explore',
        project: '/w',
        requestedModel: null,
        servedModel: 'm1',
        status: 'ok',
        startedAt: 1,
        endedAt: Date.now(),
        usage:
          input === null
            ? null
            : { input, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
        outcome: { result: null, verified: null, escalationFrom: null },
        usageSource: 't',
        transcriptPath: null,
        incomplete: false,
        fallbackKey: agentId,
      });
      db.transaction(() => {
        recordCompletion(db, row('claude', 'a', 10));
        recordCompletion(db, row('cursor', 'b', null));
        recordCompletion(db, row('cursor', 'c', null));
      });
      const columns = (table: string) =>
        db
          .prepare(`SELECT name FROM pragma_table_info('${table}')`)
          .all<{ name: string }>()
          .map((r) => r.name);
      const ROLLUPS = ['completion_rollup', 'completion_rollup_global', 'session_rollup'];
      for (const t of ROLLUPS) expect(columns(t)).toContain('cursor_runs');
      const sums = (table: string) =>
        db
          .prepare(`SELECT harness, SUM(runs) AS runs, SUM(input) AS input, SUM(no_usage) AS no_usage FROM ${table}
          GROUP BY harness HAVING SUM(runs) <> 0 ORDER BY harness`)
          .all();
      const before = ROLLUPS.map(sums);

      expect(migrate(db)).toBe(MIGRATIONS.length - 10);
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      for (const t of ROLLUPS) expect(columns(t)).not.toContain('cursor_runs');
      expect(ROLLUPS.map(sums)).toEqual(before);
      expect(before[0]).toEqual([
        { harness: 'claude', runs: 1, input: 10, no_usage: 0 },
        { harness: 'cursor', runs: 2, input: 0, no_usage: 2 },
      ]);
      // Kept by the rebuilt triggers: an insert, an update of a summed column, a deletion.
      db.transaction(() => {
        recordCompletion(db, row('cursor', 'd', null));
        db.prepare(`UPDATE completions SET input = 5 WHERE agent_id = 'a'`).run();
        db.prepare(`DELETE FROM completions WHERE agent_id = 'b'`).run();
      });
      const fromRows = db
        .prepare(`SELECT harness, COUNT(*) AS runs, SUM(COALESCE(input, 0)) AS input, SUM(input IS NULL) AS no_usage
          FROM completions GROUP BY harness ORDER BY harness`)
        .all();
      for (const t of ROLLUPS) expect(sums(t)).toEqual(fromRows);
      const byHarness = queryReport(db, { by: 'harness' });
      expect(byHarness.find((r) => r.group === 'cursor')!.usageNotReported).toBe(true);
      expect(byHarness.find((r) => r.group === 'claude')!.usageNotReported).toBe(false);
    } finally {
      db.close();
    }
  });

  it('refuses a file written by a newer tiergate instead of corrupting it', () => {
    const { dir } = tempHome();
    const file = join(dir, 'new.sqlite');
    const db = openLedger({}, { file });
    db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION + 5, 0);
    db.close();
    expect(() => openLedger({}, { file })).toThrow(/newer/);
  });

  it('puts the ledger under TIERGATE_HOME, else XDG data (never a plugin data dir)', () => {
    expect(paths({ TIERGATE_HOME: '/a', CLAUDE_PLUGIN_DATA: '/b' }).ledger).toBe('/a/data/ledger.sqlite');
    // One ledger per user, whichever harness runs the hook: plugin data dirs are not used.
    expect(paths({ CLAUDE_PLUGIN_DATA: '/b', PLUGIN_DATA: '/c', HOME: '/h' }).ledger).toBe(
      '/h/.local/share/tiergate/ledger.sqlite',
    );
    expect(paths({ PLUGIN_DATA: '/c', XDG_DATA_HOME: '/x' }).ledger).toBe('/x/tiergate/ledger.sqlite');
    expect(paths({ XDG_DATA_HOME: '/x', HOME: '/h' }).ledger).toBe('/x/tiergate/ledger.sqlite');
  });
});
