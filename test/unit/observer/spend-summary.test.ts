/**
 * The spend summary beside the ledger (src/observer/spend-summary.ts, spend-record.ts): local day and month bounds in
 * the user's zone, counting each completion once, the ledger rebuild, the lock, and the one bounded read a dispatch
 * makes (absent = $0, anything odd = an error the budgets fail open on, never a link followed).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompletionObservation } from '../../../src/contracts/observation.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { recordCompletion } from '../../../src/observer/ledger/store.js';
import { LOCK_STALE_MS, noteSpend, rebuildSpend } from '../../../src/observer/spend-record.js';
import {
  countCompletion,
  emptySpend,
  MAX_RECENT,
  periodsAt,
  spendPath,
  spendStateFrom,
  type SpendFile,
} from '../../../src/observer/spend-summary.js';
import { readSpend, readSpendFile } from '../../../src/observer/spend-read.js';
import { spendEntry } from '../../../src/observer/spend-entry.js';
import { testCost, testPricer } from './helpers.js';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

function tempHome() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-spend-'));
  const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir };
  mkdirSync(join(dir, 'tg', 'data'), { recursive: true });
  return { dir, env };
}

const USAGE = {
  input: 100_000,
  output: 10_000,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
};
function completion(over: Partial<CompletionObservation> = {}): CompletionObservation {
  return {
    kind: 'completion',
    harness: 'claude',
    sessionId: 'sess-1',
    callId: 'toolu_1',
    agentId: 'agent-1',
    subagentType: 'general-purpose',
    servedModel: 'claude-opus-5-5',
    usage: USAGE,
    status: 'ok',
    outcome: { result: null, verified: null, escalationFrom: null },
    startedAt: null,
    endedAt: Date.now(),
    usageSource: 'transcript-tail',
    dedupeKey: null,
    ...over,
  };
}
const OPUS = testCost('claude-opus-5-5', USAGE)!; // 100k in × $4 + 10k out × $20 = $0.60

describe('local calendar periods (TZ honoured)', () => {
  it('New York across the spring DST change: a 23-hour day, and the month from local midnight', () => {
    process.env.TZ = 'America/New_York';
    const p = periodsAt(Date.parse('2026-03-08T12:00:00Z'));
    expect(new Date(p.day.start).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(new Date(p.day.end).toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(p.day.end - p.day.start).toBe(23 * 3600 * 1000);
    expect(new Date(p.month.start).toISOString()).toBe('2026-03-01T05:00:00.000Z');
    expect(new Date(p.month.end).toISOString()).toBe('2026-04-01T04:00:00.000Z');
  });

  it('the same instant is another day and month in Kolkata than in UTC', () => {
    const t = Date.parse('2026-05-31T19:00:00Z');
    process.env.TZ = 'UTC';
    expect(new Date(periodsAt(t).month.start).toISOString()).toBe('2026-05-01T00:00:00.000Z');
    process.env.TZ = 'Asia/Kolkata';
    expect(new Date(periodsAt(t).day.start).toISOString()).toBe('2026-05-31T18:30:00.000Z'); // June 1, 00:00 IST
    expect(new Date(periodsAt(t).month.start).toISOString()).toBe('2026-05-31T18:30:00.000Z');
  });

  it('a summary written yesterday counts nothing for today, and a new completion starts the day at $0 (the month goes on)', () => {
    process.env.TZ = 'Europe/Paris';
    const yesterday = Date.parse('2026-05-10T20:00:00Z');
    const today = Date.parse('2026-05-11T08:00:00Z');
    let f = countCompletion(emptySpend(yesterday), { k: 'a', s: 'claude:s', at: yesterday, pico: '7' }, yesterday);
    const read = { file: f, error: null };
    expect(spendStateFrom(read, 'claude', 's', today)).toMatchObject({
      day: { pico: 0n },
      month: { pico: 7n },
      session: { pico: 7n },
    });
    f = countCompletion(f, { k: 'b', s: 'claude:s', at: today, pico: '5' }, today);
    expect(f.day).toMatchObject({ pico: '5', start: periodsAt(today).day.start });
    expect(f.month.pico).toBe('12');
    expect(f.sessions['claude:s']!.pico).toBe('12');
  });

  it('a day that has not ended counts, to its last millisecond', () => {
    process.env.TZ = 'UTC';
    const t = Date.parse('2026-05-11T00:00:00Z');
    const f = countCompletion(emptySpend(t), { k: 'a', s: null, at: t, pico: '3' }, t);
    expect(spendStateFrom({ file: f, error: null }, 'pi', null, f.day.end - 1).day.pico).toBe(3n);
    expect(spendStateFrom({ file: f, error: null }, 'pi', null, f.day.end).day.pico).toBe(0n);
  });
});

describe('counting completions', () => {
  it('the same child reported twice counts once; first unpriced, then priced, it stops being unknown', () => {
    const t = Date.now();
    let f: SpendFile = emptySpend(t);
    f = countCompletion(f, { k: 'claude:agent:x', s: 'claude:s', at: t, pico: null }, t);
    expect(f.day).toMatchObject({ pico: '0', unknown: 1 });
    f = countCompletion(f, { k: 'claude:agent:x', s: 'claude:s', at: t, pico: '600000000000' }, t);
    f = countCompletion(f, { k: 'claude:agent:x', s: 'claude:s', at: t, pico: '600000000000' }, t);
    expect(f.day).toMatchObject({ pico: '600000000000', unknown: 0 });
    expect(f.sessions['claude:s']).toMatchObject({ pico: '600000000000', unknown: 0 });
    expect(f.recent).toHaveLength(1);
  });

  it('keeps only the newest completions by key', () => {
    const t = Date.now();
    let f = emptySpend(t);
    for (let i = 0; i < MAX_RECENT + 10; i++)
      f = countCompletion(f, { k: `k${i}`, s: null, at: t + i, pico: '1' }, t + i);
    expect(f.recent).toHaveLength(MAX_RECENT);
    expect(f.day.pico).toBe(String(MAX_RECENT + 10));
  });

  it('a completion with neither a child id nor a call id is left to the ledger pass (no key to count it once by)', () => {
    expect(spendEntry(completion({ agentId: null, callId: null }), testPricer())).toBeNull();
    expect(spendEntry(completion(), testPricer())).toEqual({
      k: 'claude:agent:agent-1',
      s: 'claude:sess-1',
      at: expect.any(Number),
      pico: String(OPUS),
    });
    // Without usage, or at a model no catalog prices: unknown (null), never 0.
    expect(spendEntry(completion({ usage: null, status: 'pending' }), testPricer())!.pico).toBeNull();
    expect(spendEntry(completion({ servedModel: 'mystery' }), testPricer())!.pico).toBeNull();
  });
});

describe('the file a dispatch reads', () => {
  it('noteSpend writes it (0600) and readSpend gives this session, today and this month', () => {
    const { env } = tempHome();
    noteSpend(completion(), env, { pricer: testPricer() });
    noteSpend(completion({ agentId: 'agent-2', callId: 'toolu_2', sessionId: 'other' }), env, { pricer: testPricer() });
    const s = readSpend(env, 'claude', 'sess-1', Date.now());
    expect(s).toEqual({
      session: { pico: OPUS, unknown: 0 },
      day: { pico: 2n * OPUS, unknown: 0 },
      month: { pico: 2n * OPUS, unknown: 0 },
      sessionTotal: null,
      error: null,
    });
    // Sessions are per harness: the same id under another harness is another session.
    expect(readSpend(env, 'codex', 'sess-1', Date.now()).session).toEqual({ pico: 0n, unknown: 0 });
    const { statSync } = require('node:fs') as typeof import('node:fs');
    expect(statSync(spendPath(env)).mode & 0o777).toBe(0o600);
  });

  it('absent: nothing recorded yet, a true $0 and no error', () => {
    const { env } = tempHome();
    expect(readSpend(env, 'claude', 's', Date.now())).toMatchObject({
      session: { pico: 0n },
      day: { pico: 0n },
      error: null,
    });
  });

  it('a link in its place is not followed, and a malformed file is an error (budgets fail open), never $0', () => {
    const { dir, env } = tempHome();
    const elsewhere = join(dir, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify(emptySpend(Date.now())));
    symlinkSync(elsewhere, spendPath(env));
    expect(readSpendFile(env).error).toMatch(/spend summary unreadable/);
    const { env: env2 } = tempHome();
    writeFileSync(spendPath(env2), '{"format":"tiergate-spend/1","day":{}}');
    expect(readSpend(env2, 'claude', 's', Date.now()).error).toBe('spend summary is malformed');
    // A writer replaces the malformed file (the ledger pass restores the rest), and says so.
    noteSpend(completion(), env2, { pricer: testPricer() });
    expect(readSpend(env2, 'claude', 'sess-1', Date.now()).session).toEqual({ pico: OPUS, unknown: 0 });
    expect(readFileSync(join(env2.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')).toMatch(
      /spend summary is malformed; started again/,
    );
  });

  it('a lock left by a dead writer is taken over; a live one is waited for, then the update is given up with a diagnostic', () => {
    const { env } = tempHome();
    writeFileSync(`${spendPath(env)}.lock`, '999999\n');
    const old = (Date.now() - LOCK_STALE_MS - 1000) / 1000;
    utimesSync(`${spendPath(env)}.lock`, old, old);
    noteSpend(completion(), env, { pricer: testPricer() });
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session!.pico).toBe(OPUS);
    writeFileSync(`${spendPath(env)}.lock`, `999999 ${Date.now()}\n`);
    const t0 = Date.now();
    noteSpend(completion({ agentId: 'agent-9' }), env, { pricer: testPricer() });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session!.pico).toBe(OPUS);
    expect(readFileSync(join(env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')).toMatch(
      /not counted in the spend summary yet: .*spend summary lock held/,
    );
  });

  it('writers in parallel processes all count (the lock serialises read-modify-write)', async () => {
    const { env } = tempHome();
    const script = join(import.meta.dirname, '../../../.cache/spend-worker.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, 'spend-worker.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: script,
      external: ['better-sqlite3'],
      logLevel: 'error',
      banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
    });
    const workers = 4;
    const each = 25;
    const run = (w: number) =>
      new Promise<void>((resolve, reject) => {
        const p = spawn(process.execPath, [script, String(w), String(each)], {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'inherit', 'inherit'],
        });
        p.on('error', reject);
        p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exit ${code}`))));
      });
    await Promise.all(Array.from({ length: workers }, (_, w) => run(w)));
    const log = join(env.TIERGATE_HOME, 'data', 'diagnostics.log');
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).day).toEqual({
      pico: BigInt(workers * each) * 1000n,
      unknown: 0,
    });
  });
});

describe('rebuilt from the ledger after an observer pass', () => {
  it("the ledger's sums, plus spooled completions the ledger does not hold yet, each once", () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      const now = Date.now();
      const row = (agentId: string, sessionId: string, pico: bigint | null, endedAt = now) =>
        recordCompletion(db, {
          harness: 'claude',
          sessionId,
          callId: null,
          agentId,
          subagentType: null,
          project: null,
          requestedModel: null,
          servedModel: 'claude-opus-5-5',
          usage: USAGE,
          status: 'ok',
          outcome: { result: null, verified: null, escalationFrom: null },
          startedAt: null,
          endedAt,
          usageSource: 'scan',
          transcriptPath: null,
          incomplete: false,
          fallbackKey: agentId,
          cost: pico === null ? null : { picoUsd: pico, catalogVersion: 't', modelId: 'claude-opus-5-5' },
        });
      row('a1', 'sess-1', 5n);
      row('a2', 'sess-1', null);
      row('a3', 'sess-2', 7n, now - 40 * 24 * 3600 * 1000); // another month: only its session counts it
      // Counted at spool time: a1 (now in the ledger, repriced there) and a4 (not drained yet).
      noteSpend(completion({ agentId: 'a1', callId: null }), env, { pricer: testPricer() });
      noteSpend(completion({ agentId: 'a4', callId: null }), env, { pricer: testPricer() });
      rebuildSpend(db, env);
      const s = readSpend(env, 'claude', 'sess-1', Date.now());
      expect(s.session).toEqual({ pico: 5n + OPUS, unknown: 1 });
      expect(s.day).toEqual({ pico: 5n + OPUS, unknown: 1 });
      expect(readSpend(env, 'claude', 'sess-2', Date.now()).session).toEqual({ pico: 7n, unknown: 0 });
      // Once drained, a4 is the ledger's: a second rebuild does not count it twice.
      row('a4', 'sess-1', 11n);
      rebuildSpend(db, env);
      expect(readSpend(env, 'claude', 'sess-1', Date.now()).session).toEqual({ pico: 16n, unknown: 1 });
    } finally {
      db.close();
    }
  });
});
