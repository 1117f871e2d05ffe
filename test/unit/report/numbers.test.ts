/**
 * The numbers people came for (issue 21): what tiergate's own decisions saved, per row and in the totals, beside the
 * "on the parent's model" figure; corrections and denials counted per row; the subagents' share of the whole usage
 * where scan knows it; --by session dearest first with project and last activity; --csv keeps every model pair.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReportSchema, type ReportRow } from '../../../src/contracts/report.js';
import type { Usage } from '../../../src/contracts/usage.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import {
  reconcileCompletions,
  recordCompletion,
  recordDispatch,
  type CompletionRow,
  type DispatchRow,
} from '../../../src/observer/ledger/store.js';
import { scanTranscripts } from '../../../src/collect/scan.js';
import { CSV_COLUMNS, formatCsv } from '../../../src/report/format-csv.js';
import { queryRuns } from '../../../src/report/run-rows.js';
import { formatJson } from '../../../src/report/format-json.js';
import { buildReport } from '../../../src/report/query.js';
import { claudeConfigDir, tempHome, testCost, testPricer } from '../observer/helpers.js';
import { completionRow, dispatchRow } from '../support/ledger-rows.js';

const T = Date.parse('2026-12-01T10:00:00Z');
const usage = (input: number, output: number): Usage => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
});
const U = usage(1_000_000, 100_000);
const cost = (model: string, u: Usage = U) => testCost(model, u)!;

const d = (callId: string, over: Partial<DispatchRow> = {}) => dispatchRow(callId, { at: T, ...over });
const c = (agentId: string, callId: string | null, over: Partial<CompletionRow> = {}) =>
  completionRow(agentId, callId, { usage: U, startedAt: T, endedAt: T + 1000, ...over });

function seed(db: SqlDriver): void {
  db.transaction(() => {
    // Opus asked under a Sonnet parent, corrected to Sonnet: $0 "on the parent's model", opus - sonnet saved by tiergate.
    recordDispatch(db, d('k1'), 'k1');
    recordCompletion(db, c('a1', 'k1'));
    // No model named under an Opus parent: the default tier (haiku) instead of the inherited Opus.
    recordDispatch(
      db,
      d('k2', {
        parentModel: 'claude-opus-5-5',
        requestedModel: null,
        reason: 'default-tier-applied',
        tier: 'cheap',
        effectiveModel: 'claude-haiku-4-5',
        subagentType: 'Plan',
      }),
      'k2',
    );
    recordCompletion(db, c('a2', 'k2', { servedModel: 'claude-haiku-4-5', subagentType: 'Plan' }));
    // A corrected child that ran two turns (a Codex follow-up): one correction, both turns saved.
    recordDispatch(
      db,
      d('k3', {
        harness: 'codex',
        sessionId: 'S2',
        parentModel: 'gpt-6-astra',
        requestedModel: 'gpt-6-astra',
        effectiveModel: 'gpt-6-luna',
        tier: 'cheap',
        subagentType: 'worker',
      }),
      'k3',
    );
    recordCompletion(
      db,
      c('x3', 'k3', {
        harness: 'codex',
        sessionId: 'S2',
        servedModel: 'gpt-6-luna',
        subagentType: 'worker',
        turnId: 't1',
        startedAt: T,
        endedAt: T + 10,
      }),
    );
    recordCompletion(
      db,
      c('x3', 'k3', {
        harness: 'codex',
        sessionId: 'S2',
        servedModel: 'gpt-6-luna',
        subagentType: 'worker',
        turnId: 't2',
        startedAt: T + 20,
        endedAt: T + 30,
        fallbackKey: 'x3b',
      }),
    );
    // A correction to a model no catalog prices: counted, not in the saving.
    recordDispatch(db, d('k4', { effectiveModel: 'claude-mystery-1' }), 'k4');
    recordCompletion(db, c('a4', 'k4', { servedModel: 'claude-mystery-1' }));
    // A correction whose child has not completed yet, and a denial: counted on their rows.
    recordDispatch(db, d('k5'), 'k5');
    recordDispatch(
      db,
      d('k6', { action: 'deny', reason: 'over-ceiling-denied', tier: null, effectiveModel: null }),
      'k6',
    );
    // An allowed dispatch: neither corrected nor in the saving.
    recordDispatch(
      db,
      d('k7', {
        action: 'allow',
        reason: 'within-ceiling',
        requestedModel: 'claude-haiku-4-5',
        effectiveModel: 'claude-haiku-4-5',
        tier: 'cheap',
        subagentType: 'general-purpose',
      }),
      'k7',
    );
    recordCompletion(db, c('a7', 'k7', { servedModel: 'claude-haiku-4-5', subagentType: 'general-purpose' }));
  });
  db.transaction(() => reconcileCompletions(db, testPricer()));
}

const sum = (rows: ReportRow[], f: (r: ReportRow) => number) => rows.reduce((a, r) => a + f(r), 0);

describe('what tiergate saved', () => {
  it('prices each corrected run at the model it would have run on, per row and in the totals', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      seed(db);
      const r = buildReport(db, { by: 'agent' }, new Date(), testPricer());
      const row = (g: string) => r.rows.find((x) => x.group === g)!;
      const explore = row('Explore');
      // k1: opus -> sonnet. Its "on the parent's model" (sonnet) saving is 0; tiergate's is opus - sonnet.
      expect(explore.corrected).toBe(3);
      expect(explore.denied).toBe(1);
      expect(explore.savedRuns).toBe(1);
      expect(explore.saved.pico).toBe((cost('claude-opus-5-5') - cost('claude-sonnet-5-5')).toString());
      expect(row('Plan')).toMatchObject({
        corrected: 1,
        savedRuns: 1,
        saved: { pico: (cost('claude-opus-5-5') - cost('claude-haiku-4-5')).toString() },
      });
      // Two turns of one corrected dispatch: counted once, both priced.
      expect(row('worker')).toMatchObject({
        corrected: 1,
        savedRuns: 2,
        saved: { pico: (2n * (cost('gpt-6-astra') - cost('gpt-6-luna'))).toString() },
      });
      expect(r.totals.corrected).toBe(sum(r.rows, (x) => x.corrected));
      expect(r.totals.corrected).toBe(5);
      expect(r.totals.savedRuns).toBe(4);
      expect(BigInt(r.totals.saved.pico!)).toBe(r.rows.reduce((a, x) => a + BigInt(x.saved.pico ?? '0'), 0n));
      expect(r.totals.saved.usd).toBe('37.200000'); // 3 + 4.5 + 2 × 14.85
      // The parent figure stays what it was: k1 saved nothing on the parent's model.
      expect(explore.savings.pico).toBe('0');
      expect(row('general-purpose')).toMatchObject({ corrected: 0, savedRuns: 0, saved: { pico: null } });
      expect(ReportSchema.parse(JSON.parse(formatJson(r)))).toEqual(r);
    } finally {
      db.close();
    }
  });

  it('without a pricer the corrections are still counted and the saving is unknown, never $0', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      seed(db);
      const r = buildReport(db, { by: 'harness' });
      expect(r.totals).toMatchObject({ corrected: 5, savedRuns: 0, saved: { usd: null, pico: null } });
      expect(Object.fromEntries(r.rows.map((x) => [x.group, x.corrected]))).toEqual({ claude: 4, codex: 1 });
    } finally {
      db.close();
    }
  });
});

describe('the rows people read', () => {
  it("--by session is dearest first, with each session's project and last activity", () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      db.transaction(() => {
        recordCompletion(
          db,
          c('s1', null, {
            sessionId: 'aaa-cheap',
            servedModel: 'claude-haiku-4-5',
            project: '/p/one',
            endedAt: T + 5000,
          }),
        );
        recordCompletion(
          db,
          c('s2', null, {
            sessionId: 'zzz-dear',
            servedModel: 'claude-opus-5-5',
            project: '/p/two',
            endedAt: T + 9000,
          }),
        );
        recordCompletion(
          db,
          c('s3', null, { sessionId: 'mmm-mid', servedModel: 'claude-sonnet-5-5', project: '/p/one', endedAt: T }),
        );
      });
      db.transaction(() => reconcileCompletions(db, testPricer()));
      const r = buildReport(db, { by: 'session' });
      expect(r.rows.map((x) => x.group)).toEqual(['zzz-dear', 'mmm-mid', 'aaa-cheap']);
      expect(r.rows[0]).toMatchObject({ project: '/p/two', lastActivity: new Date(T + 9000).toISOString() });
      expect(r.rows[2]).toMatchObject({ project: '/p/one', lastActivity: new Date(T + 5000).toISOString() });
      expect(ReportSchema.parse(JSON.parse(formatJson(r)))).toEqual(r);
      // Other groupings carry no session fields.
      expect(buildReport(db, { by: 'agent' }).rows[0]!.project).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it('--csv: one line per run, each with its own requested -> served pair', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      const served = [
        'claude-haiku-4-5',
        'claude-sonnet-5-5',
        'claude-opus-5-5',
        'gpt-6-luna',
        'gpt-6-astra',
        'm6',
        'm7',
      ];
      db.transaction(() => {
        served.forEach((m, i) => {
          for (let k = 0; k <= i; k++) recordCompletion(db, c(`p${i}-${k}`, null, { servedModel: m }));
        });
      });
      const r = buildReport(db, { by: 'agent' });
      expect(r.rows[0]!.models).toHaveLength(7);
      // One line per run, each with its own served model (a group used to keep only its first pair).
      const csv = formatCsv(r, queryRuns(db, { by: 'agent' }))
        .split('\r\n')
        .filter(Boolean);
      const header = csv[0]!.split(',');
      expect(header).toEqual([...CSV_COLUMNS]);
      const at = header.indexOf('served_model');
      const count = new Map<string, number>();
      for (const l of csv.slice(1)) count.set(l.split(',')[at]!, (count.get(l.split(',')[at]!) ?? 0) + 1);
      expect(Object.fromEntries(count)).toEqual(Object.fromEntries(served.map((m, i) => [m, i + 1])));
    } finally {
      db.close();
    }
  });

  it('puts the subagents beside the whole usage scan knows, with the same filters', () => {
    const { dir, env } = tempHome();
    const db = openLedger(env);
    try {
      scanTranscripts(
        db,
        [{ harness: 'claude', dir: join(claudeConfigDir(dir).configDir, 'projects') }],
        testPricer(),
        {},
        env,
      );
      const r = buildReport(db, { by: 'agent' });
      const whole = r.wholeUsage!;
      expect(whole.requests).toBeGreaterThan(whole.subagentRequests);
      expect(whole.subagentRequests).toBeGreaterThan(0);
      expect(whole.sessions).toBe(1);
      const all = db
        .prepare(
          'SELECT CAST(SUM(cost_pico) AS TEXT) AS a, CAST(SUM(CASE WHEN sidechain = 1 THEN cost_pico END) AS TEXT) AS s FROM requests',
        )
        .get<{ a: string; s: string }>()!;
      expect(whole.cost.pico).toBe(all.a);
      expect(whole.subagentCost.pico).toBe(all.s);
      expect(BigInt(whole.subagentCost.pico!)).toBeLessThan(BigInt(whole.cost.pico!));
      expect(buildReport(db, { by: 'agent', harness: 'codex' }).wholeUsage).toBeUndefined();
      expect(buildReport(db, { by: 'agent', since: Date.parse('2099-01-01T00:00:00Z') }).wholeUsage).toBeUndefined();
      expect(ReportSchema.parse(JSON.parse(formatJson(r)))).toEqual(r);
    } finally {
      db.close();
    }
  });
});
