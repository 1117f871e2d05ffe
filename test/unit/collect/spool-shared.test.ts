/**
 * The shared spool file (observer/spool.ts): processes append to one file that drainers claim by renaming it at any
 * moment. Every line lands in the ledger once, whichever writer and drainer ran when; a dispatch makes no file of its
 * own (no inode a hook: bench/README.md, "Session 18").
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paths } from '../../../src/io/paths.js';
import { drainSpool } from '../../../src/collect/drain.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { appendSpool, SHARED_SPOOL_FILE } from '../../../src/observer/spool.js';
import type { SpoolRecord } from '../../../src/contracts/spool.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';
import { CLAUDE_SESSION, tempHome } from '../observer/helpers.js';
import { bundleWorker } from '../../support/worker-bundle.js';

const record = (callId: string): SpoolRecord => ({
  type: 'dispatch',
  observation: claudeDispatchObservation({ sessionId: CLAUDE_SESSION, callId, at: Date.parse('2026-12-02T14:06:52Z') }),
  decision: {
    action: 'allow',
    reason: 'within-ceiling',
    tier: 'standard',
    effectiveModel: 'sonnet',
    catalogVersion: 't',
  },
});

/** Runs a bundled worker; resolves with what it printed (the drain worker: the dispatches it inserted). */
const runNode = (script: string, args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<number>((resolve, reject) => {
    const p = spawn(process.execPath, [script, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0 ? resolve(Number(out.trim() || 0)) : reject(new Error(`${script} exit ${code}`)),
    );
  });

const count = (env: NodeJS.ProcessEnv, sql: string): number => {
  const db = openLedger(env);
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('the shared spool file', () => {
  it('a process appends to the one shared file (0600), and a drain takes every line', () => {
    const { env } = tempHome();
    for (const id of ['toolu_a', 'toolu_b', 'toolu_c']) appendSpool(record(id), env);
    const dir = paths(env).spoolDir;
    expect(readdirSync(dir)).toEqual([SHARED_SPOOL_FILE]);
    expect(statSync(join(dir, SHARED_SPOOL_FILE)).mode & 0o777).toBe(0o600);
    const db = openLedger(env);
    try {
      expect(drainSpool(db, env).dispatches).toBe(3);
    } finally {
      db.close();
    }
    expect(readdirSync(dir)).toEqual([]);
    appendSpool(record('toolu_d'), env); // after the claim: the same name again
    expect(readdirSync(dir)).toEqual([SHARED_SPOOL_FILE]);
  });

  it('writers in parallel processes and drainers claiming the file meanwhile: every record lands once', async () => {
    const { dir, env } = tempHome();
    openLedger(env).close();
    const [writer, drainer] = await Promise.all([
      bundleWorker(join(import.meta.dirname, 'spool-writer-worker.ts'), 'spool-shared-writer'),
      // Its own name: drain.test.ts bundles drain-worker.ts too, in another vitest worker at the same time.
      bundleWorker(join(import.meta.dirname, 'drain-worker.ts'), 'spool-shared-drainer'),
    ]);
    const file = join(dir, 'record.json');
    writeFileSync(file, JSON.stringify(record('x')));
    const writers = 6;
    const each = 400;
    const writing = Promise.all(
      Array.from({ length: writers }, (_, w) => runNode(writer, [file, `w${w}`, `${each}`], env)),
    );
    let done = false;
    void writing.finally(() => (done = true));
    // Drains while the writers append (two at a time, racing each other too), then once more after them.
    const during: number[] = [];
    while (!done || during.length === 0)
      during.push(...(await Promise.all([runNode(drainer, [], env), runNode(drainer, [], env)])));
    await writing;
    await runNode(drainer, [], env);
    // Some drain took lines while the writers were still at it (else this test proves nothing about the race).
    expect(during.some((n) => n > 0 && n < writers * each)).toBe(true);
    expect(count(env, 'SELECT COUNT(*) AS n FROM dispatches')).toBe(writers * each);
    expect(count(env, 'SELECT COUNT(DISTINCT call_id) AS n FROM dispatches')).toBe(writers * each);
    expect(readdirSync(paths(env).spoolDir)).toEqual([]);
  }, 60_000);
});
