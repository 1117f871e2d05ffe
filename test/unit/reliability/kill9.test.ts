/**
 * kill -9 of a process mid-write to the ledger (WAL, transactions of 50 rows): afterwards the ledger opens cleanly
 * (not set aside as corrupt), integrity_check is ok, and every transaction is all-or-nothing: no partial batch, no
 * half-written row. Several kills at varied moments, the next writer continuing on the same file each time.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/observer/ledger/open.js';

const root = join(import.meta.dirname, '../../..');

function writeThenKill(env: Record<string, string>, lane: number, afterMs: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    // node itself with tsx's loader, not the tsx wrapper: SIGKILL to a wrapper leaves its node child writing forever
    // (it filled the disk once).
    const p = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'ledger-writer.ts'), String(lane)],
      { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.stdout.once('data', () => setTimeout(() => p.kill('SIGKILL'), afterMs));
    p.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve(signal) : reject(new Error(`writer ended ${code}: ${err.slice(-500)}`)),
    );
  });
}

describe('kill -9 mid-write', () => {
  it('the ledger opens cleanly afterwards, with whole transactions only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-kill9-'));
    const env = { PATH: process.env.PATH ?? '', HOME: dir, TIERGATE_HOME: join(dir, 'tg') };
    const kills = [15, 120, 40, 300, 75];
    try {
      for (const [lane, ms] of kills.entries()) {
        expect(await writeThenKill(env, lane, ms)).toBe('SIGKILL');
        // The WAL is left behind un-checkpointed: the next open must recover it, not rebuild the ledger.
        expect(existsSync(join(env.TIERGATE_HOME, 'data', 'ledger.sqlite-wal'))).toBe(true);
        const db = openLedger(env);
        try {
          expect(db.prepare('PRAGMA integrity_check').get<{ integrity_check: string }>()?.integrity_check).toBe('ok');
          const batches = db
            .prepare(`SELECT substr(agent_id, 1, instr(agent_id, '-i') - 1) AS batch, COUNT(*) AS n,
            SUM(served_model = 'gpt-6-luna' AND input = 1200 AND output = 340 AND cache_read = 5000 AND result = 'done' AND status = 'ok') AS whole
          FROM completions WHERE session_id = ? GROUP BY batch`)
            .all<{ batch: string; n: number; whole: number }>(`kill-${lane}`);
          expect(batches.length).toBeGreaterThan(0);
          for (const b of batches) expect(b).toEqual({ batch: b.batch, n: 50, whole: 50 });
        } finally {
          db.close();
        }
      }
      expect(readdirSync(join(env.TIERGATE_HOME, 'data')).filter((f) => f.includes('.corrupt-'))).toEqual([]);
      expect(existsSync(join(env.TIERGATE_HOME, 'data', 'diagnostics.log'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
