// Ledger migration 4 (per-turn completion rows: two columns, rollups rebuilt) on a schema-3 ledger of N completions.
// A one-time cost, paid by the first process that opens the upgraded ledger. Runs it on RUNS fresh copies; median.
// The Codex SessionEnd hook drains inside ~2.5 s: a migration longer than that there rolls back and is redone by the
// next `tiergate report`/`scan` (which has no deadline), so the figure to watch is against that budget.
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, median, src } from './lib.mjs';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.argv[2] ?? 3);
const { migrate } = await src('observer/ledger/open.ts');
const { MIGRATIONS } = await src('observer/ledger/schema.ts');
const { openBetterSqlite } = await src('observer/ledger/driver-better-sqlite3.ts');

const dir = benchDir('ledger-migrate');
const base = join(dir, 'v3.sqlite');
rmSync(base, { force: true });
let db = openBetterSqlite(base, { busyTimeoutMs: 1000 });
db.exec('PRAGMA journal_mode = WAL');
migrate(db, MIGRATIONS.slice(0, 3));
const ins =
  db.prepare(`INSERT INTO completions (dedupe_key, harness, session_id, call_id, agent_id, dispatch_id, served_model, parent_model,
  tier, input, output, cache_read, cache_write_5m, cache_write_1h, reasoning, requests, cost_pico, status, started_at, ended_at, day, usage_source)
  VALUES (?, ?, ?, ?, ?, ?, ?, 'gpt-6-astra', 'cheap', 1000, 100, 10, 0, 0, 0, 1, 123456, 'ok', ?, ?, ?, 'bench')`);
const H = ['claude', 'codex', 'opencode', 'pi', 'cursor'];
const M = ['gpt-6-luna', 'gpt-6-sol', 'claude-haiku-4-5', 'big', 'small'];
const day0 = Date.parse('2026-01-01T00:00:00Z');
for (let s = 0; s < ROWS; s += 50_000) {
  db.transaction(() => {
    for (let i = s; i < Math.min(ROWS, s + 50_000); i++) {
      const at = day0 + i * 30_000;
      ins.run(
        `${H[i % 5]}:agent:a${i}`,
        H[i % 5],
        `S${Math.floor(i / 200)}`,
        `c${i}`,
        `a${i}`,
        i,
        M[i % 5],
        at,
        at + 5000,
        new Date(at).toISOString().slice(0, 10),
      );
    }
  });
}
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
db.close();

const ms = [];
for (let r = 0; r < RUNS; r++) {
  const f = join(dir, `run-${r}.sqlite`);
  copyFileSync(base, f);
  const d = openBetterSqlite(f, { busyTimeoutMs: 1000 });
  d.exec('PRAGMA journal_mode = WAL');
  const t = performance.now();
  migrate(d, MIGRATIONS);
  ms.push(performance.now() - t);
  d.close();
  rmSync(f, { force: true });
  rmSync(`${f}-wal`, { force: true });
  rmSync(`${f}-shm`, { force: true });
}
console.log(JSON.stringify({ rows: ROWS, runs: RUNS, medianMs: Math.round(median(ms)), ms: ms.map(Math.round) }));
