/**
 * The spend summary beside the ledger (src/observer/spend-summary.ts, spend-record.ts): local day and month bounds in
 * the user's zone, counting each completion once, the ledger rebuild, the lock, and the one bounded read a dispatch
 * makes (absent = $0, anything odd = an error the budgets fail open on, never a link followed).
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompletionObservation, DispatchObservation } from '../../../src/contracts/observation.js';
import { askState } from '../../../src/observer/spend-reserve.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { recordCompletion } from '../../../src/observer/ledger/store.js';
import { LOCK_STALE_MS, mergeSpend, noteSpend, rebuildSpend } from '../../../src/observer/spend-record.js';
import { JOURNAL_MAX_ENTRIES, journalCompletion, journalDir } from '../../../src/observer/spend-journal.js';
import {
  addReservation,
  askBasis,
  countCompletion,
  emptySpend,
  estimateCost,
  RESERVATION_TTL_MS,
  type EstimateInput,
  type RecentEntry,
  type Reservation,
  MAX_RECENT,
  MAX_RESERVED,
  periodsAt,
  spendPath,
  spendStateFrom,
  type SpendFile,
} from '../../../src/observer/spend-summary.js';
import { readSpend, readSpendFile, readSpendWith } from '../../../src/observer/spend-read.js';
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
      // What a reservation's estimate is drawn from, and which dispatch's reservation it settles.
      c: 'toolu_1',
      m: 'claude-opus-5-5',
      a: 'general-purpose',
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
      // Nothing dispatched under a limit in this session: none running, none started.
      fanout: { running: 0, started: 0 },
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

  it('a lock left by a dead writer is taken over; behind a live one a completion still counts at once (journaled), merged by the next holder', () => {
    const { env } = tempHome();
    writeFileSync(`${spendPath(env)}.lock`, '999999\n');
    const old = (Date.now() - LOCK_STALE_MS - 1000) / 1000;
    utimesSync(`${spendPath(env)}.lock`, old, old);
    noteSpend(completion(), env, { pricer: testPricer() });
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session!.pico).toBe(OPUS);
    writeFileSync(`${spendPath(env)}.lock`, `999999 ${Date.now()}\n`);
    const t0 = Date.now();
    noteSpend(completion({ agentId: 'agent-9', callId: 'toolu_9' }), env, { pricer: testPricer() });
    expect(Date.now() - t0).toBeLessThan(500); // never waits out a busy lock
    // Not in spend.json yet, but counted by every reader (the journal is read with it).
    expect(JSON.parse(readFileSync(spendPath(env), 'utf8')).recent).toHaveLength(1);
    expect(readdirSync(journalDir(env))).toHaveLength(1);
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session!.pico).toBe(2n * OPUS);
    // The lock freed, the next holder merges it, once.
    rmSync(`${spendPath(env)}.lock`);
    expect(mergeSpend(env)).toBe(true);
    expect(readdirSync(journalDir(env))).toHaveLength(0);
    expect(JSON.parse(readFileSync(spendPath(env), 'utf8')).recent).toHaveLength(2);
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session!.pico).toBe(2n * OPUS);
  });

  // Writers in parallel processes (16 and 64 at once): spend-concurrency.test.ts.
});

describe('a re-read under the lock', () => {
  it('takes the earlier parse only for the very same bytes: a rewrite of the same length and mtime is read anew', () => {
    const { dir, env } = tempHome();
    const now = Date.now();
    const f = emptySpend(now);
    const write = (pico: string) => {
      writeFileSync(spendPath(env), JSON.stringify({ ...f, day: { ...f.day, pico } }));
      utimesSync(spendPath(env), 1_700_000_000, 1_700_000_000);
    };
    write('100');
    const first = readSpendWith(env, now);
    expect(first.file!.day.pico).toBe('100');
    expect(readSpendWith(env, now, first).file).toBe(first.file);
    write('200'); // as long, same mtime: only the bytes tell
    const again = readSpendWith(env, now, first);
    expect(again.file!.day.pico).toBe('200');
    // A fault is still a fault after a good read (budgets fail open), and a link is still not followed.
    writeFileSync(spendPath(env), '{');
    expect(readSpendWith(env, now, again).error).toBe('spend summary is not JSON');
    rmSync(spendPath(env));
    writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ ...f, day: { ...f.day, pico: '200' } }));
    symlinkSync(join(dir, 'elsewhere.json'), spendPath(env));
    expect(readSpendWith(env, now, again).error).toMatch(/spend summary unreadable/);
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

describe('reservations: a dispatch holds its expected cost until its completion settles it', () => {
  const S = 'claude:sess-1';
  const entry = (k: string, pico: string | null, over: Partial<RecentEntry> = {}): RecentEntry => ({
    k,
    s: S,
    at: Date.now(),
    pico,
    ...over,
  });
  const held = (c: string | null, pico: string, now: number, s: string | null = S): Reservation => ({
    c,
    s,
    at: now,
    until: now + RESERVATION_TTL_MS,
    pico,
  });

  it('counts in the session, the day and the month until settled by its own call id, else the oldest of its session', () => {
    const now = Date.now();
    let f = addReservation(emptySpend(now), held('toolu_a', '100', now), now);
    f = addReservation(f, held('toolu_b', '200', now), now);
    f = addReservation(f, held('toolu_x', '400', now, 'claude:other'), now);
    const state = () => spendStateFrom({ file: f, error: null }, 'claude', 'sess-1', now);
    expect(state().session).toEqual({ pico: 300n, unknown: 0 });
    expect(state().day).toEqual({ pico: 700n, unknown: 0 });
    // b's child finishes at 250: its own reservation goes, a's stays.
    f = countCompletion(f, entry('kb', '250', { c: 'toolu_b' }), now);
    expect(state().session).toEqual({ pico: 350n, unknown: 0 });
    // Reported again (priced late): no second reservation is settled.
    f = countCompletion(f, entry('kb', '260', { c: 'toolu_b' }), now);
    expect(f.reserved!.map((r) => r.c)).toEqual(['toolu_a', 'toolu_x']);
    // A completion without a call id settles the oldest of its session.
    f = countCompletion(f, entry('kz', '90'), now);
    expect(f.reserved!.map((r) => r.c)).toEqual(['toolu_x']);
    expect(state().session).toEqual({ pico: 350n, unknown: 0 });
  });

  it('adding one leaves the summary it was added to as it was (the dispatch reuses a parsed summary)', () => {
    const now = Date.now();
    let f = addReservation(emptySpend(now), held('toolu_a', '100', now), now);
    f = countCompletion(f, entry('ka', '250', { c: 'toolu_zz', s: 'claude:other' }), now);
    const before = JSON.stringify(f);
    const next = addReservation(f, held('toolu_b', '5', now + 1), now + 1);
    expect(JSON.stringify(f)).toBe(before);
    expect(next.reserved!.map((r) => r.c)).toEqual(['toolu_a', 'toolu_b']);
    // Rolled on to a later day: the new periods are the copy's, the old ones stay in `f`.
    const tomorrow = addReservation(f, held('toolu_c', '7', f.day.end), f.day.end);
    expect(tomorrow.day.pico).toBe('0');
    expect(JSON.stringify(f)).toBe(before);
    // Still bounded: the newest MAX_RESERVED are kept.
    let full = f;
    for (let i = 0; i < MAX_RESERVED; i++) full = addReservation(full, held(`toolu_${i}`, '1', now), now);
    expect(full.reserved!.length).toBe(MAX_RESERVED);
    expect(full.reserved![0]!.c).toBe('toolu_0'); // toolu_a, the oldest, went
    expect(full.reserved!.at(-1)!.c).toBe(`toolu_${MAX_RESERVED - 1}`);
  });

  it('one never settled stops counting after RESERVATION_TTL_MS, and is dropped at the next write', () => {
    const now = Date.now();
    const f = addReservation(emptySpend(now), held('toolu_a', '100', now), now);
    const later = now + RESERVATION_TTL_MS;
    expect(spendStateFrom({ file: f, error: null }, 'claude', 'sess-1', later - 1).session!.pico).toBe(100n);
    expect(spendStateFrom({ file: f, error: null }, 'claude', 'sess-1', later).session!.pico).toBe(0n);
    expect(addReservation(f, held('toolu_b', '5', later), later).reserved!.map((r) => r.c)).toEqual(['toolu_b']);
  });

  it("the estimate: this session's mean, else this agent type's median, else budgets.reserve, else the model's median, else any child's", () => {
    const now = Date.now();
    let f = emptySpend(now);
    const add = (e: RecentEntry) => {
      f = countCompletion(f, e, now);
    };
    add(entry('o1', '1000', { s: 'claude:other', a: 'explore', m: 'haiku' }));
    add(entry('o2', '3000', { s: 'claude:other', a: 'explore', m: 'haiku' }));
    add(entry('o3', '9000', { s: 'claude:other', a: 'explore', m: 'haiku' }));
    add(entry('o4', '50000', { s: 'claude:other', a: 'plan', m: 'opus' }));
    add(entry('o5', null, { s: S, a: 'plan', m: 'opus' })); // unpriced: never an estimate of $0
    const est = (over: Partial<EstimateInput>) =>
      estimateCost(f, { session: S, agent: null, model: null, reserve: null, ...over });
    expect(est({ agent: 'explore' })).toBe(3000n);
    expect(est({ agent: 'review', reserve: 7n })).toBe(7n);
    expect(est({ model: 'opus' })).toBe(50000n);
    expect(est({})).toBe(3000n); // median of every priced child: 1000, 3000, 9000, 50000
    add(entry('s1', '100', { a: 'explore' }));
    add(entry('s2', '300', { a: 'explore' }));
    expect(est({ agent: 'explore', reserve: 7n })).toBe(200n);
    expect(estimateCost(emptySpend(now), { session: S, agent: null, model: null, reserve: null })).toBeNull();
  });

  it("an ask's basis (issue 33 item 3): this agent type's median child with its model, else this session's, never an unpriced one", () => {
    const now = Date.now();
    let f = emptySpend(now);
    for (const e of [
      entry('o1', '1000', { s: 'claude:other', a: 'explore', m: 'haiku' }),
      entry('o2', '9000', { s: 'claude:other', a: 'explore', m: 'opus' }),
      entry('o3', '3000', { s: 'claude:other', a: 'explore', m: 'sonnet' }),
      entry('s1', '500', { a: 'plan', m: 'opus' }),
      entry('s2', null, { a: 'plan', m: 'opus' }),
    ])
      f = countCompletion(f, e, now);
    expect(askBasis(f, { session: S, agent: 'explore' })).toEqual({
      pico: 3000n,
      model: 'sonnet',
      from: 'agent',
      n: 3,
    });
    expect(askBasis(f, { session: S, agent: 'review' })).toEqual({ pico: 500n, model: 'opus', from: 'session', n: 1 });
    expect(askBasis(f, { session: 'claude:none', agent: 'review' })).toBeNull();
    expect(askBasis(emptySpend(now), { session: S, agent: 'explore' })).toBeNull();
  });

  it('askState reads the summary without taking the lock or writing, and carries the basis', () => {
    const { env } = tempHome();
    const now = Date.now();
    writeFileSync(
      spendPath(env),
      JSON.stringify(countCompletion(emptySpend(now), entry('a1', '700', { a: 'explore', m: 'haiku' }), now)),
    );
    const before = readFileSync(spendPath(env), 'utf8');
    const obs = { harness: 'claude', sessionId: 'sess-1', subagentType: 'explore', at: now } as DispatchObservation;
    expect(askState(env, obs).askBasis).toEqual({ pico: 700n, model: 'haiku', from: 'agent', n: 1 });
    expect(readFileSync(spendPath(env), 'utf8')).toBe(before);
    expect(readdirSync(join(env.TIERGATE_HOME, 'data')).sort()).toEqual(['spend.json']);
  });
});

describe('a reservation whose child reaches only the ledger', () => {
  it('is settled by the rebuild after the drain, by its call id', () => {
    const { env } = tempHome();
    const now = Date.now();
    const r = (c: string): Reservation => ({
      c,
      s: 'cursor:s',
      at: now,
      until: now + RESERVATION_TTL_MS,
      pico: '500',
      h: 'cursor',
    });
    writeFileSync(
      spendPath(env),
      JSON.stringify(addReservation(addReservation(emptySpend(now), r('call-done'), now), r('call-running'), now)),
    );
    const db = openLedger(env);
    try {
      recordCompletion(db, {
        harness: 'cursor',
        sessionId: 's',
        callId: 'call-done',
        agentId: null,
        subagentType: null,
        project: null,
        requestedModel: null,
        servedModel: null,
        usage: null,
        status: 'ok',
        outcome: { result: null, verified: null, escalationFrom: null },
        startedAt: null,
        endedAt: now,
        usageSource: 'none',
        transcriptPath: null,
        incomplete: false,
        fallbackKey: 'call-done',
        cost: null,
      });
      rebuildSpend(db, env);
    } finally {
      db.close();
    }
    const f = JSON.parse(readFileSync(spendPath(env), 'utf8')) as SpendFile;
    expect(f.reserved!.map((x) => x.c)).toEqual(['call-running']);
    // The finished child counts as unknown (the ledger has no cost for it), the running one at its estimate.
    expect(readSpend(env, 'cursor', 's', Date.now()).session).toEqual({ pico: 500n, unknown: 1 });
  });
});

describe('a journal past its bound', () => {
  it('a reader reports it (budgets fail open, diagnosed); mergers take it in batches and none is lost', () => {
    const { env } = tempHome();
    const now = Date.now();
    const n = JOURNAL_MAX_ENTRIES + 3;
    for (let i = 0; i < n; i++) journalCompletion(env, { k: `k${i}`, s: 'claude:sess-1', at: now, pico: '2' }, now);
    expect(readSpendFile(env).error).toBe(
      `spend journal holds ${n} unmerged completions (over ${JOURNAL_MAX_ENTRIES})`,
    );
    expect(mergeSpend(env)).toBe(true);
    expect(readdirSync(journalDir(env))).toHaveLength(3);
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).day).toEqual({ pico: BigInt(2 * n), unknown: 0 });
  });
});
