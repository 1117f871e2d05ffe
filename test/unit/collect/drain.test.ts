import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompletionObservation, DispatchObservation } from '../../../src/contracts/observation.js';
import type { SpoolRecord } from '../../../src/contracts/spool.js';
import { paths } from '../../../src/io/paths.js';
import { drainSpool, PENDING_GIVE_UP_MS, reconcilePending, runObserver } from '../../../src/collect/drain.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { bundleWorker } from '../../support/worker-bundle.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';
import {
  CLAUDE_AGENT,
  CLAUDE_SESSION,
  claudeConfigDir,
  FIXTURES,
  tempHome,
  testCost,
  testPricer,
} from '../observer/helpers.js';

const CANARY = 'CANARY-7f3a-never-stored';

function dispatch(callId: string, over: Partial<DispatchObservation> = {}): SpoolRecord {
  return {
    type: 'dispatch',
    observation: claudeDispatchObservation({
      sessionId: CLAUDE_SESSION,
      callId,
      capability: {
        canRewrite: true,
        rewriteField: 'model',
        rewriteKind: 'model',
        legalValues: ['haiku', 'sonnet', 'opus', 'fable'],
        canDeny: true,
      },
      toolInput: { description: 'd', prompt: `${CANARY} brief text`, subagent_type: 'general-purpose', model: 'opus' },
      cwd: '/work/demo',
      at: Date.parse('2026-12-02T14:06:52Z'),
      ...over,
    }),
    decision: {
      action: 'correct',
      reason: 'over-ceiling-corrected',
      tier: 'standard',
      effectiveModel: 'sonnet',
      catalogVersion: 'bundled-test',
    },
  };
}

function completion(
  agentId: string | null,
  callId: string | null,
  over: Partial<CompletionObservation> = {},
  transcriptPath: string | null = null,
): SpoolRecord {
  return {
    type: 'completion',
    observation: {
      kind: 'completion',
      harness: 'claude',
      sessionId: CLAUDE_SESSION,
      callId,
      agentId,
      subagentType: 'general-purpose',
      servedModel: 'claude-sonnet-5-5',
      usage: {
        input: 1000,
        output: 200,
        cacheRead: 500,
        cacheWrite5m: 300,
        cacheWrite1h: 0,
        reasoning: 0,
        requests: 1,
      },
      status: 'ok',
      outcome: { result: 'done', verified: 'yes', escalationFrom: null },
      startedAt: Date.parse('2026-12-02T14:06:52Z'),
      endedAt: Date.parse('2026-12-02T14:06:55Z'),
      usageSource: 'transcript-tail',
      dedupeKey: null,
      ...over,
    },
    transcriptPath,
  };
}

const one = <T>(db: ReturnType<typeof openLedger>, sql: string) => db.prepare(sql).get<T>()!;

describe('spool drain', () => {
  it('moves dispatch and completion into the ledger, joined by call id, priced at served and parent model', () => {
    const { env } = tempHome();
    resetSpoolFile();
    appendSpool(dispatch('toolu_1'), env);
    appendSpool(completion('agent_1', 'toolu_1'), env);
    const db = openLedger(env);
    try {
      const stats = runObserver(env, testPricer(), db)!;
      expect(stats).toMatchObject({ files: 1, lines: 2, dispatches: 1, completions: 1, invalid: 0, priced: 1 });
      const c = one<Record<string, unknown>>(db, 'SELECT * FROM completions');
      const u = {
        input: 1000,
        output: 200,
        cacheRead: 500,
        cacheWrite5m: 300,
        cacheWrite1h: 0,
        reasoning: 0,
        requests: 1,
      };
      expect(c).toMatchObject({
        call_id: 'toolu_1',
        parent_model: 'claude-opus-5-5',
        requested_model: 'sonnet',
        tier: 'standard',
        served_model: 'claude-sonnet-5-5',
        result: 'done',
        verified: 'yes',
        duration_ms: 3000,
        day: '2026-12-02',
        project: null,
      });
      expect(BigInt(c.cost_pico as number)).toBe(testCost('claude-sonnet-5-5', u));
      expect(BigInt(c.counterfactual_pico as number)).toBe(testCost('claude-opus-5-5', u));
      expect(one<{ completion_id: number }>(db, 'SELECT completion_id FROM dispatches').completion_id).toBe(c.id);
      expect(readdirSync(paths(env).spoolDir)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('joins a completion drained before its dispatch', () => {
    const { env } = tempHome();
    resetSpoolFile();
    appendSpool(completion('agent_1', 'toolu_1'), env);
    const db = openLedger(env);
    try {
      runObserver(env, testPricer(), db);
      expect(one<{ p: string | null }>(db, 'SELECT parent_model AS p FROM completions').p).toBeNull();
      resetSpoolFile();
      appendSpool(dispatch('toolu_1'), env);
      runObserver(env, testPricer(), db);
      expect(
        one<Record<string, unknown>>(db, 'SELECT parent_model, counterfactual_pico FROM completions'),
      ).toMatchObject({
        parent_model: 'claude-opus-5-5',
        counterfactual_pico: expect.any(Number),
      });
    } finally {
      db.close();
    }
  });

  it('the same record in two spool files, or drained twice, lands once', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      for (let i = 0; i < 2; i++) {
        resetSpoolFile();
        appendSpool(dispatch('toolu_1'), env);
        appendSpool(completion('agent_1', 'toolu_1'), env);
        appendSpool(completion('agent_1', 'toolu_1', { usageSource: 'module' }), env);
      }
      runObserver(env, testPricer(), db);
      expect(one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM dispatches').n).toBe(1);
      expect(one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM completions').n).toBe(1);
    } finally {
      db.close();
    }
  });

  it('skips invalid lines, logs them, and keeps the valid ones', () => {
    const { env } = tempHome();
    resetSpoolFile();
    appendSpool(dispatch('toolu_1'), env);
    const dir = paths(env).spoolDir;
    writeFileSync(join(dir, 'junk.jsonl'), '{not json\n{"type":"completion","observation":{}}\n');
    const db = openLedger(env);
    try {
      const s = drainSpool(db, env);
      expect(s).toMatchObject({ dispatches: 1, invalid: 2, files: 2 });
      expect(readFileSync(paths(env).diagnostics, 'utf8')).toMatch(/spool lines skipped/);
    } finally {
      db.close();
    }
  });

  it('two drainers racing over the same spool never double-insert or lose a line', async () => {
    const { env } = tempHome();
    const files = 20;
    const perFile = 25;
    for (let f = 0; f < files; f++) {
      resetSpoolFile();
      for (let i = 0; i < perFile; i++) appendSpool(dispatch(`toolu_${f}_${i}`), env);
    }
    openLedger(env).close();
    const script = await bundleWorker(join(import.meta.dirname, 'drain-worker.ts'), 'drain-worker');
    const run = () =>
      new Promise<number>((resolve, reject) => {
        const p = spawn(process.execPath, [script], {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        p.stdout.on('data', (d) => (out += d));
        p.on('error', reject);
        p.on('close', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`worker exit ${code}`))));
      });
    const inserted = await Promise.all([run(), run()]);
    const db = openLedger(env);
    try {
      expect(one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM dispatches').n).toBe(files * perFile);
      expect(inserted[0]! + inserted[1]!).toBe(files * perFile);
      expect(readdirSync(paths(env).spoolDir)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('late flush: a pending completion is settled from its transcript once it is written', () => {
    const { dir, env } = tempHome();
    const c = claudeConfigDir(dir);
    const full = readFileSync(c.child, 'utf8').split('\n');
    writeFileSync(c.child, full.slice(0, 12).join('\n') + '\n'); // before the assistant line was flushed
    resetSpoolFile();
    appendSpool(dispatch('toolu_demo_1_0'), env);
    appendSpool(
      completion(
        CLAUDE_AGENT,
        'toolu_demo_1_0',
        {
          status: 'pending',
          usage: null,
          servedModel: null,
          outcome: { result: null, verified: null, escalationFrom: null },
          // Ended just now: a pending row older than PENDING_GIVE_UP_MS (a week) is given up, so the fixture's date
          // would fail this test a week after it was written.
          startedAt: Date.now() - 3000,
          endedAt: Date.now(),
        },
        c.child,
      ),
      env,
    );
    const db = openLedger(env);
    try {
      runObserver(env, testPricer(), db);
      expect(one<Record<string, unknown>>(db, 'SELECT status, input, cost_pico FROM completions')).toEqual({
        status: 'pending',
        input: null,
        cost_pico: null,
      });
      copyFileSync(join(FIXTURES, 'claude/transcripts/basic.child.at-SubagentStop.jsonl'), c.child);
      const s = runObserver(env, testPricer(), db)!;
      expect(s.reconciledPending).toBe(1);
      const row = one<Record<string, unknown>>(db, 'SELECT * FROM completions');
      expect(row).toMatchObject({
        status: 'ok',
        served_model: 'claude-opus-5-5',
        input: 1002,
        output: 22,
        result: 'demo',
        verified: 'yes',
        usage_source: 'transcript-late',
        parent_model: 'claude-opus-5-5',
      });
      expect(row.cost_pico).toEqual(expect.any(Number));
      expect(row.counterfactual_pico).toEqual(expect.any(Number));
    } finally {
      db.close();
    }
  });

  it('a completion whose transcript never flushes is given up as unknown after a week', () => {
    const { dir, env } = tempHome();
    resetSpoolFile();
    appendSpool(
      completion('agent_x', null, { status: 'pending', usage: null, endedAt: 1000 }, join(dir, 'missing.jsonl')),
      env,
    );
    const db = openLedger(env);
    try {
      drainSpool(db, env);
      expect(reconcilePending(db, 1000 + PENDING_GIVE_UP_MS - 1)).toBe(0);
      expect(one<{ status: string }>(db, 'SELECT status FROM completions').status).toBe('pending');
      reconcilePending(db, 1000 + PENDING_GIVE_UP_MS + 1);
      expect(one<{ status: string }>(db, 'SELECT status FROM completions').status).toBe('unknown');
    } finally {
      db.close();
    }
  });

  it('no prompt or answer text reaches the ledger (spool toolInput and transcript text are dropped)', () => {
    const { dir, env } = tempHome();
    const c = claudeConfigDir(dir);
    writeFileSync(
      c.child,
      readFileSync(c.child, 'utf8').replace('Result: demo child finished', `${CANARY}\\nResult: demo child finished`),
    );
    resetSpoolFile();
    appendSpool(dispatch('toolu_demo_1_0'), env);
    appendSpool(completion(CLAUDE_AGENT, 'toolu_demo_1_0', { status: 'pending', usage: null }, c.child), env);
    const db = openLedger(env);
    runObserver(env, testPricer(), db);
    expect(one<{ status: string; result: string }>(db, 'SELECT status, result FROM completions')).toEqual({
      status: 'ok',
      result: 'demo',
    });
    db.close();
    const file = paths(env).ledger;
    for (const f of [file, `${file}-wal`]) if (existsSync(f)) expect(readFileSync(f).includes(CANARY)).toBe(false);
    expect(readFileSync(file).length).toBeGreaterThan(0);
  });
});

describe('observer pass from a hook', () => {
  it('stops claiming spool files once its time budget is spent, and the next pass takes the rest', () => {
    const { env } = tempHome();
    for (let f = 0; f < 5; f++) {
      resetSpoolFile();
      appendSpool(dispatch(`toolu_b${f}`), env);
    }
    const db = openLedger(env);
    try {
      const spooled = readdirSync(paths(env).spoolDir);
      expect(runObserver(env, testPricer(), db, -1)!).toMatchObject({ files: 0, dispatches: 0 });
      expect(readdirSync(paths(env).spoolDir)).toEqual(spooled);
      expect(runObserver(env, testPricer(), db)!).toMatchObject({ files: spooled.length, dispatches: 5 });
      expect(one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM dispatches').n).toBe(5);
    } finally {
      db.close();
    }
  });

  it('never throws: an unopenable ledger is one diagnostic line and a null result', () => {
    const { dir, env } = tempHome();
    writeFileSync(join(dir, 'not-a-dir'), 'x');
    const bad = { ...env, TIERGATE_HOME: join(dir, 'not-a-dir') };
    expect(runObserver(bad, testPricer())).toBeNull();
  });
});
