/**
 * One spawned Codex child that is sent a follow-up task runs two turns (captured on codex-cli 0.169.0:
 * fixtures SubagentStop.followup-turn{1,2}.json and rollouts/followup.*). Each turn is its own ledger row, joined to
 * the one spawn dispatch, idempotent on re-drain and re-scan; a follow-up turn is a run, not another dispatch.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capabilityFor } from '../../../../src/adapters/capabilities.js';
import { observeCompletion } from '../../../../src/adapters/codex/completion.js';
import { parseCodexRollout } from '../../../../src/adapters/codex/transcript.js';
import { DEFAULT_POLICY } from '../../../../src/config/load.js';
import type { SpoolRecord } from '../../../../src/contracts/spool.js';
import { runObserver } from '../../../../src/collect/drain.js';
import type { SqlDriver } from '../../../../src/observer/ledger/driver.js';
import { openBetterSqlite } from '../../../../src/observer/ledger/driver-better-sqlite3.js';
import { migrate, openLedger } from '../../../../src/observer/ledger/open.js';
import { MIGRATIONS } from '../../../../src/observer/ledger/schema.js';
import { reconcileCompletions, recordDispatch } from '../../../../src/observer/ledger/store.js';
import { scanTranscripts } from '../../../../src/collect/scan.js';
import { appendSpool, resetSpoolFile } from '../../../../src/observer/spool.js';
import { queryReport } from '../../../../src/report/query.js';
import { tempHome, testCost, testPricer } from '../../observer/helpers.js';
import { fixture, ROLLOUTS } from './support.js';

const T1 = fixture('SubagentStop.followup-turn1.json').payload;
const T2 = fixture('SubagentStop.followup-turn2.json').payload;
const AGENT = String(T1.agent_id);
const SESSION = String(T1.session_id);
const SPAWN_CALL = 'call_spawn_1';
const CHILD_NAME = 'rollout-2026-12-02T18-56-16-01a2381d-55db-7831-b15f-bedf35f3943d.jsonl';
const PARENT_NAME = 'rollout-2026-12-02T18-56-15-01a2381d-5363-7f73-b456-999e1a678e8f.jsonl';

/** The rollouts where Codex keeps them; the child as it was when the given SubagentStop ran. */
function layout(dir: string) {
  const codexHome = join(dir, 'codex-home');
  const day = join(codexHome, 'sessions', '2026', '12', '02');
  mkdirSync(day, { recursive: true });
  const parent = join(day, PARENT_NAME);
  const child = join(day, CHILD_NAME);
  copyFileSync(join(ROLLOUTS, 'followup.parent.final.jsonl'), parent);
  const finalLines = readFileSync(join(ROLLOUTS, 'followup.child.final.jsonl'), 'utf8').split('\n').filter(Boolean);
  const childAt = (stop: 1 | 2 | 'final') => {
    // At the first SubagentStop the first turn's task_complete (line 18) is not written yet (seen).
    if (stop === 1) writeFileSync(child, `${finalLines.slice(0, 17).join('\n')}\n`);
    else if (stop === 2) copyFileSync(join(ROLLOUTS, 'followup.child.at-second-SubagentStop.jsonl'), child);
    else copyFileSync(join(ROLLOUTS, 'followup.child.final.jsonl'), child);
  };
  const roots = [{ harness: 'codex' as const, dir: join(codexHome, 'sessions') }];
  return { codexHome, parent, child, childAt, roots };
}

function stopRecord(
  payload: Record<string, unknown>,
  parent: string,
  child: string,
  env: Record<string, string>,
): SpoolRecord {
  const read = observeCompletion(
    { ...payload, transcript_path: parent, agent_transcript_path: child },
    { tailBytes: 1 << 20, now: Date.parse('2026-12-02T18:56:18Z'), env },
  );
  return { type: 'completion', observation: read.observation, transcriptPath: read.transcriptPath };
}

/** A temp home with the rollouts laid out; stop(n) is the n-th SubagentStop's record, read from the child as it was then. */
function setup() {
  const { dir, env } = tempHome();
  const x = layout(dir);
  const stop = (turn: 1 | 2): SpoolRecord => {
    x.childAt(turn);
    return stopRecord(turn === 1 ? T1 : T2, x.parent, x.child, env);
  };
  const scan = (db: SqlDriver, opts: { full?: boolean } = {}) => scanTranscripts(db, x.roots, testPricer(), opts, env);
  return { dir, env, x, stop, scan };
}

/** fn on the home's ledger, closed afterwards. */
function withLedger(env: Record<string, string>, fn: (db: SqlDriver) => void, file?: string): void {
  const db = openLedger(env, file === undefined ? undefined : { file });
  try {
    fn(db);
  } finally {
    db.close();
  }
}

function spawnDispatch(): SpoolRecord {
  return {
    type: 'dispatch',
    observation: {
      kind: 'dispatch',
      harness: 'codex',
      sessionId: SESSION,
      callId: SPAWN_CALL,
      parentModel: 'gpt-6-astra',
      parentModelSource: 'payload',
      requestedModel: 'gpt-6-luna',
      requestedAgent: null,
      requestedTier: null,
      agentModel: null,
      subagentType: null,
      capability: capabilityFor('codex', DEFAULT_POLICY),
      toolInput: { task_name: 'e2e_child', model: 'gpt-6-luna' },
      cwd: '/w',
      escalationFrom: null,
      at: Date.parse('2026-12-02T18:56:16Z'),
    },
    decision: {
      action: 'allow',
      reason: 'within-ceiling',
      tier: 'parent',
      effectiveModel: 'gpt-6-luna',
      catalogVersion: 'test',
    },
  };
}

type Row = {
  turn_id: string | null;
  input: number;
  output: number;
  cache_read: number;
  call_id: string | null;
  dispatch_id: number | null;
  followup: number;
  status: string;
  result: string | null;
  cost_pico: bigint | number | null;
  parent_model: string | null;
};
const rows = (db: SqlDriver) =>
  db
    .prepare(
      `SELECT turn_id, input, output, cache_read, call_id, dispatch_id, followup, status, result, cost_pico, parent_model
   FROM completions ORDER BY started_at, id`,
    )
    .all<Row>();
const totals = (db: SqlDriver) => queryReport(db, { by: 'harness' }).totals!;
const luna = (input: number, output: number, cacheRead: number) =>
  testCost('gpt-6-luna', { input, output, cacheRead, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 });

describe('Codex: a spawned child sent a follow-up task runs two turns -> two ledger rows', () => {
  it('the two SubagentStop payloads name different turns of one agent, and each reads its own turn', () => {
    expect(T1.agent_id).toBe(T2.agent_id);
    expect(T1.turn_id).not.toBe(T2.turn_id);
    const { stop } = setup();
    const a = stop(1);
    const b = stop(2);
    if (a.type !== 'completion' || b.type !== 'completion') throw new Error('not completions');
    expect(a.observation).toMatchObject({
      turnId: T1.turn_id,
      callId: SPAWN_CALL,
      status: 'ok',
      usage: { input: 500, output: 23, cacheRead: 503, requests: 1 },
    });
    expect(b.observation).toMatchObject({
      turnId: T2.turn_id,
      callId: SPAWN_CALL,
      status: 'ok',
      usage: { input: 500, output: 25, cacheRead: 505, requests: 1 },
    });
  });

  it('drained: one row per turn, both joined to the spawn, the follow-up not counted as a dispatch; re-drain keeps two', () => {
    const { env, x, stop, scan } = setup();
    resetSpoolFile();
    appendSpool(spawnDispatch(), env);
    const first = stop(1);
    appendSpool(first, env);
    const second = stop(2);
    appendSpool(second, env);
    withLedger(env, (db) => {
      runObserver(env, testPricer(), db);
      const r = rows(db);
      expect(r).toHaveLength(2);
      expect(r.map((q) => [q.turn_id, q.input, q.output, q.cache_read, q.call_id, q.followup])).toEqual([
        [T1.turn_id, 500, 23, 503, SPAWN_CALL, 0],
        [T2.turn_id, 500, 25, 505, SPAWN_CALL, 1],
      ]);
      expect(r[0]!.dispatch_id).not.toBeNull();
      expect(r[1]!.dispatch_id).toBe(r[0]!.dispatch_id);
      expect(r.map((q) => q.parent_model)).toEqual(['gpt-6-astra', 'gpt-6-astra']);
      expect(r.map((q) => q.result)).toEqual(['done3', 'done5']);
      expect(r.map((q) => BigInt(q.cost_pico!))).toEqual([luna(500, 23, 503), luna(500, 25, 505)]);
      const dispatch = db.prepare('SELECT completion_id FROM dispatches').all<{ completion_id: number }>();
      const firstId = db.prepare('SELECT id FROM completions WHERE followup = 0').get<{ id: number }>()!.id;
      expect(dispatch).toEqual([{ completion_id: firstId }]);
      expect(totals(db)).toMatchObject({ runs: 2, dispatches: 1, completed: 2 });

      // The same spool lines drained again (a crash before the spool file was removed): nothing new.
      resetSpoolFile();
      appendSpool(spawnDispatch(), env);
      appendSpool(first, env);
      appendSpool(second, env);
      runObserver(env, testPricer(), db);
      expect(rows(db)).toEqual(r);
      expect(totals(db)).toMatchObject({ runs: 2, dispatches: 1 });

      // A scan of the same rollouts lands on the same two keys.
      x.childAt('final');
      scan(db);
      expect(rows(db).map((q) => [q.turn_id, q.input, q.output, q.call_id, q.followup])).toEqual(
        r.map((q) => [q.turn_id, q.input, q.output, q.call_id, q.followup]),
      );
      expect(totals(db)).toMatchObject({ runs: 2, dispatches: 1 });
    });
  });

  it('scan alone (no hooks): one row per turn, priced per turn, rescans idempotent', () => {
    const { env, x, scan } = setup();
    x.childAt('final');
    const parse = parseCodexRollout(x.child);
    expect(parse.childTurns?.map((t) => [t.turnId, t.usage?.output, t.outcome.result, t.complete])).toEqual([
      [T1.turn_id, 23, 'done3', true],
      [T2.turn_id, 25, 'done5', true],
    ]);
    // The whole-child summary is still the sum (what older callers read).
    expect(parse.child?.usage?.output).toBe(48);
    withLedger(env, (db) => {
      scan(db);
      scan(db, { full: true });
      const r = rows(db);
      expect(r.map((q) => [q.turn_id, q.output, q.call_id, q.followup])).toEqual([
        [T1.turn_id, 23, SPAWN_CALL, 0],
        [T2.turn_id, 25, SPAWN_CALL, 1],
      ]);
      expect(totals(db)).toMatchObject({ runs: 2, dispatches: 1 });
    });
  });

  it('a pending turn settles from its own turn only, not the whole child', () => {
    const { env, x, stop } = setup();
    resetSpoolFile();
    const second = stop(2);
    if (second.type !== 'completion') throw new Error('not a completion');
    // As if the turn's usage had not been flushed at SubagentStop.
    appendSpool(
      { ...second, observation: { ...second.observation, usage: null, status: 'pending', usageSource: 'none' } },
      env,
    );
    x.childAt('final');
    withLedger(env, (db) => {
      runObserver(env, testPricer(), db);
      expect(rows(db).map((q) => [q.turn_id, q.status, q.input, q.output])).toEqual([[T2.turn_id, 'ok', 500, 25]]);
    });
  });
});

describe('ledger migration 4: rows keyed per child before it stay readable', () => {
  it('a schema-3 row keyed codex:agent:<id> survives the upgrade and is replaced by per-turn rows on a rescan', () => {
    const { dir, env, x, scan } = setup();
    const v3 = join(dir, 'old.sqlite');
    const raw = openLedgerAt(v3, 3);
    recordDispatch(
      raw,
      {
        harness: 'codex',
        sessionId: SESSION,
        callId: SPAWN_CALL,
        at: Date.parse('2026-12-02T18:56:16Z'),
        project: null,
        parentModel: 'gpt-6-astra',
        parentModelSource: 'payload',
        requestedModel: 'gpt-6-luna',
        requestedAgent: null,
        requestedTier: null,
        subagentType: null,
        action: 'allow',
        reason: 'within-ceiling',
        tier: 'parent',
        effectiveModel: 'gpt-6-luna',
        catalogVersion: 'test',
        escalationFrom: null,
        childAgentId: null,
        source: 'spool',
      },
      SPAWN_CALL,
    );
    legacyInsert(raw);
    raw.close();

    withLedger(
      env,
      (up) => {
        const legacy = up.prepare('SELECT dedupe_key, turn_id, followup, output FROM completions').all();
        expect(legacy).toEqual([{ dedupe_key: `codex:agent:${AGENT}`, turn_id: null, followup: 0, output: 23 }]);
        up.transaction(() => reconcileCompletions(up, testPricer()));
        expect(totals(up)).toMatchObject({ runs: 1, dispatches: 1 });

        x.childAt('final');
        scan(up);
        expect(up.prepare('SELECT dedupe_key, output, followup FROM completions ORDER BY started_at').all()).toEqual([
          { dedupe_key: `codex:agent:${AGENT}:turn:${T1.turn_id}`, output: 23, followup: 0 },
          { dedupe_key: `codex:agent:${AGENT}:turn:${T2.turn_id}`, output: 25, followup: 1 },
        ]);
        expect(totals(up)).toMatchObject({ runs: 2, dispatches: 1 });
        expect(up.prepare('SELECT COUNT(*) AS n FROM dispatches WHERE completion_id IS NULL').get()).toEqual({ n: 0 });
      },
      v3,
    );
  });
});

/** A ledger file migrated only to `version`, opened through the normal driver. */
function openLedgerAt(file: string, version: number): SqlDriver {
  const db = openBetterSqlite(file, { busyTimeoutMs: 1000 });
  migrate(db, MIGRATIONS.slice(0, version));
  return db;
}

/** What the schema-3 code stored for the first turn's SubagentStop (the second turn's was dropped). */
function legacyInsert(db: SqlDriver): void {
  db.prepare(
    `INSERT INTO completions (dedupe_key, harness, session_id, call_id, agent_id, served_model, input, output, cache_read,
       cache_write_5m, cache_write_1h, reasoning, requests, status, started_at, ended_at, day, usage_source)
     VALUES (?, 'codex', ?, ?, ?, 'gpt-6-luna', 500, 23, 503, 0, 0, 3, 1, 'ok', ?, ?, '2026-12-02', 'transcript-tail')`,
  ).run(
    `codex:agent:${AGENT}`,
    SESSION,
    SPAWN_CALL,
    AGENT,
    Date.parse('2026-12-02T18:56:16Z'),
    Date.parse('2026-12-02T18:56:17Z'),
  );
}
