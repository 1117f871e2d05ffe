/**
 * The same ledger file and schema from Bun (bun:sqlite, OpenCode's plugin runtime) and Node (better-sqlite3).
 * Needs a Bun binary: TIERGATE_BUN, `bun` on PATH, or .cache/bun (npm install bun@1 there).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paths } from '../../../src/io/paths.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { tempHome } from '../../unit/observer/helpers.js';
import { harnessBin } from '../support/harness-bin.js';

function bunBinary(): string {
  const installed = harnessBin('bun');
  const candidates = [process.env.TIERGATE_BUN, installed.ok ? installed.bin : null].filter(Boolean) as string[];
  for (const c of candidates) if (existsSync(c)) return c;
  const which = spawnSync('sh', ['-c', 'command -v bun'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error(
    `no Bun binary: ${installed.ok ? '' : installed.reason}; set TIERGATE_BUN or run node scripts/install-harnesses.mjs bun`,
  );
}

describe('ledger under Bun (bun:sqlite) and Node (better-sqlite3)', () => {
  it('Bun drains a spool Node wrote into a ledger Node created; Node reads what Bun wrote', () => {
    const { env } = tempHome();
    openLedger(env).close(); // created and migrated by Node
    resetSpoolFile();
    appendSpool(
      {
        type: 'completion',
        observation: {
          kind: 'completion',
          harness: 'claude',
          sessionId: 's',
          callId: 'toolu_node',
          agentId: 'a_node',
          subagentType: null,
          servedModel: 'claude-haiku-4-5',
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
          status: 'ok',
          outcome: { result: null, verified: null, escalationFrom: null },
          startedAt: null,
          endedAt: 5,
          usageSource: 'transcript-tail',
          dedupeKey: null,
        },
        transcriptPath: null,
      },
      env,
    );
    const r = spawnSync(bunBinary(), [join(import.meta.dirname, 'bun-ledger.ts')], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(out.driver).toBe('bun:sqlite');
    expect(out.stats.completions).toBe(1);
    expect(out.rows).toEqual([
      { harness: 'claude', call_id: 'toolu_node', cost: null },
      { harness: 'opencode', call_id: 'call_bun', cost: '38250000000' },
    ]);
    const db = openLedger(env);
    try {
      expect(db.kind).toBe('better-sqlite3');
      expect(
        db.prepare(`SELECT CAST(cost_pico AS TEXT) AS c FROM completions WHERE harness = 'opencode'`).get(),
      ).toEqual({ c: '38250000000' });
      expect(db.prepare('SELECT SUM(runs) AS n FROM completion_rollup').get()).toEqual({ n: 2 });
    } finally {
      db.close();
    }
    expect(statSync(paths(env).ledger).mode & 0o777).toBe(0o600);
  });
});
