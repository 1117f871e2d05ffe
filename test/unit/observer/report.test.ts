import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReportSchema, type ReportRow } from '../../../src/contracts/report.js';
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
import { formatTable } from '../../../src/report/format-table.js';
import { buildReport, queryReport } from '../../../src/report/query.js';
import { claudeConfigDir, codexHome, tempHome, testCost, testPricer } from './helpers.js';
import { completionRow, dispatchRow } from '../support/ledger-rows.js';

const NO_OUTCOME = { result: null, verified: null, escalationFrom: null };
const DAY1 = Date.parse('2026-12-01T10:00:00Z');
const DAY2 = Date.parse('2026-12-02T10:00:00Z');
const usage = (input: number, output: number) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
});

const d = (callId: string, over: Partial<DispatchRow> = {}) =>
  dispatchRow(callId, {
    at: DAY1,
    parentModel: 'claude-opus-5-5',
    requestedModel: 'opus',
    tier: 'cheap',
    effectiveModel: 'haiku',
    ...over,
  });
const c = (agentId: string, callId: string | null, over: Partial<CompletionRow> = {}) =>
  completionRow(agentId, callId, {
    servedModel: 'claude-haiku-4-5',
    usage: usage(1_000_000, 100_000),
    startedAt: DAY1,
    endedAt: DAY1 + 1000,
    ...over,
  });

function seed(db: SqlDriver): void {
  db.transaction(() => {
    recordDispatch(db, d('t1'), 't1');
    recordCompletion(db, c('a1', 't1'));
    recordDispatch(db, d('t2'), 't2');
    recordCompletion(
      db,
      c('a2', 't2', { outcome: { result: 'failed', verified: 'no', escalationFrom: null }, endedAt: DAY2 }),
    );
    // Served a model no catalog knows: unpriced, never $0.
    recordDispatch(db, d('t3', { tier: 'standard', effectiveModel: 'sonnet', subagentType: 'general-purpose' }), 't3');
    recordCompletion(
      db,
      c('a3', 't3', { servedModel: 'claude-mystery-9', subagentType: 'general-purpose', endedAt: DAY2 }),
    );
    // Denied: never ran.
    recordDispatch(
      db,
      d('t4', { action: 'deny', reason: 'over-ceiling-denied', tier: null, effectiveModel: null }),
      't4',
    );
    // Cursor reports no usage.
    recordCompletion(
      db,
      c('cur1', null, {
        harness: 'cursor',
        sessionId: 'S9',
        usage: null,
        servedModel: null,
        outcome: NO_OUTCOME,
        subagentType: 'cursor-task',
        project: '/work/b',
      }),
    );
    // Pending (transcript not flushed).
    recordCompletion(
      db,
      c('a5', null, {
        status: 'pending',
        usage: null,
        servedModel: null,
        outcome: NO_OUTCOME,
        subagentType: 'Explore',
        sessionId: 'S2',
      }),
    );
  });
  db.transaction(() => reconcileCompletions(db, testPricer()));
}

const sumRows = (rows: ReportRow[], f: (r: ReportRow) => number) => rows.reduce((a, r) => a + f(r), 0);

describe('report', () => {
  it('totals equal the sum of the rows for every grouping, money exact', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      seed(db);
      for (const by of ['session', 'agent', 'tier', 'model', 'harness', 'day'] as const) {
        const rows = queryReport(db, { by });
        const t = rows.totals!;
        expect({ by, runs: t.runs }).toEqual({ by, runs: 6 });
        expect(sumRows(rows, (r) => r.runs)).toBe(t.runs);
        expect(sumRows(rows, (r) => r.dispatches)).toBe(t.dispatches);
        expect(sumRows(rows, (r) => r.completed)).toBe(t.completed);
        expect(sumRows(rows, (r) => r.verified)).toBe(t.verified);
        expect(sumRows(rows, (r) => r.tokens.total)).toBe(t.tokens.total);
        expect(rows.reduce((a, r) => a + BigInt(r.cost.pico ?? '0'), 0n).toString()).toBe(t.cost.pico);
      }
      const t = queryReport(db, { by: 'agent' }).totals!;
      const haiku = testCost('claude-haiku-4-5', usage(1_000_000, 100_000))!;
      const opus = testCost('claude-opus-5-5', usage(1_000_000, 100_000))!;
      expect(t).toMatchObject({
        dispatches: 4,
        denied: 1,
        completed: 4,
        pending: 1,
        verified: 2,
        unpricedRuns: 1,
        noUsageRuns: 2,
        comparableRuns: 2,
      });
      expect(t.cost).toEqual({ pico: (2n * haiku).toString(), usd: '3.000000' });
      // Counterfactual only over runs priced on both sides: the unpriced run is not compared.
      expect(t.counterfactual.pico).toBe((2n * opus).toString());
      expect(t.savings.pico).toBe((2n * opus - 2n * haiku).toString());
      expect(t.savings.usd).toBe('9.000000');
    } finally {
      db.close();
    }
  });

  it('groups by tier with requested -> served pairs, and shows unpriced and Cursor rows honestly', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      seed(db);
      const rows = queryReport(db, { by: 'tier' });
      const cheap = rows.find((r) => r.group === 'cheap')!;
      expect(cheap.models).toEqual([{ requested: 'haiku', served: 'claude-haiku-4-5', runs: 2 }]);
      const standard = rows.find((r) => r.group === 'standard')!;
      expect(standard.cost).toEqual({ usd: null, pico: null });
      expect(standard.unpricedRuns).toBe(1);
      const byHarness = queryReport(db, { by: 'harness' });
      expect(byHarness.find((r) => r.group === 'cursor')!.usageNotReported).toBe(true);
      const table = formatTable(buildReport(db, { by: 'harness' }));
      expect(table).toMatch(/n\/a \(Cursor\)[\s\S]*n\/a \(Cursor\): usage not reported by Cursor/);
      const tierTable = formatTable(buildReport(db, { by: 'tier' }));
      expect(tierTable).toMatch(/unpriced/);
      expect(tierTable).toMatch(/haiku → claude-haiku-4-5/);
      expect(tierTable).not.toMatch(/\$0\.0000/);
    } finally {
      db.close();
    }
  });

  it('filters by time, harness, session and project (path prefix, not substring)', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      seed(db);
      expect(queryReport(db, { by: 'harness', since: DAY2 }).totals!.runs).toBe(2);
      expect(queryReport(db, { by: 'harness', until: DAY2 }).totals!.runs).toBe(4);
      expect(queryReport(db, { by: 'harness', harness: 'cursor' }).totals!.runs).toBe(1);
      expect(queryReport(db, { by: 'harness', session: 'S2' }).totals!.pending).toBe(1);
      expect(queryReport(db, { by: 'harness', project: '/work/b' }).totals!.runs).toBe(1);
      expect(queryReport(db, { by: 'harness', project: '/work/a' }).totals!.runs).toBe(5);
      expect(queryReport(db, { by: 'harness', project: '/work/' }).totals!.runs).toBe(6);
      expect(queryReport(db, { by: 'harness', project: '/wor' }).totals!.runs).toBe(0);
    } finally {
      db.close();
    }
  });

  it('--json validates against the documented schema and round-trips; --csv has one header and a row per group + total', () => {
    const { dir, env } = tempHome();
    const db = openLedger(env);
    try {
      seed(db);
      scanTranscripts(
        db,
        [
          { harness: 'claude', dir: join(claudeConfigDir(dir).configDir, 'projects') },
          { harness: 'codex', dir: join(codexHome(dir).codexHome, 'sessions') },
        ],
        testPricer(),
        {},
        env,
      );
      const report = buildReport(db, { by: 'model', since: DAY1 }, new Date('2026-12-03T00:00:00Z'));
      const parsed = ReportSchema.parse(JSON.parse(formatJson(report)));
      expect(parsed).toEqual(report);
      expect(parsed.filters.since).toBe('2026-12-01T10:00:00.000Z');
      // One line per run (issue 29), each with its own pair; the totals line only with --total.
      const runs = queryRuns(db, { by: 'model', since: DAY1 });
      expect(runs).toHaveLength(report.totals.runs);
      const csv = formatCsv(report, runs, { total: true }).split('\r\n').filter(Boolean);
      expect(csv[0]).toBe(CSV_COLUMNS.join(','));
      expect(csv).toHaveLength(runs.length + 2);
      for (const line of csv.slice(1)) expect(line.split(',')).toHaveLength(CSV_COLUMNS.length);
      expect(csv.at(-1)!.startsWith('total,')).toBe(true);
      expect(csv.some((l) => l.startsWith('gpt-6-luna,'))).toBe(true);
      expect(formatCsv(report, runs).split('\r\n').filter(Boolean)).toHaveLength(runs.length + 1);
    } finally {
      db.close();
    }
  });
});

describe('completion rollup (kept by triggers)', () => {
  const fromRollup = (db: SqlDriver) =>
    db
      .prepare(
        `SELECT day, harness, session_id, served_model, SUM(runs) AS runs, SUM(input) AS input, CAST(SUM(cost_pico) AS TEXT) AS cost,
       SUM(priced_runs) AS priced, SUM(verified) AS verified, SUM(pending) AS pending, SUM(comparable) AS comparable
     FROM completion_rollup GROUP BY 1, 2, 3, 4 HAVING SUM(runs) <> 0 ORDER BY 1, 2, 3, 4`,
      )
      .all();
  const fromRows = (db: SqlDriver) =>
    db
      .prepare(
        `SELECT day, harness, COALESCE(session_id, '') AS session_id, COALESCE(served_model, '') AS served_model, COUNT(*) AS runs,
       SUM(COALESCE(input, 0)) AS input, CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS cost, COUNT(cost_pico) AS priced,
       SUM(COALESCE(verified IN ('yes', 'y', 'true', 'pass', 'passed', 'tests', 'ok', 'verified'), 0)) AS verified,
       SUM(status = 'pending') AS pending, SUM(cost_pico IS NOT NULL AND counterfactual_pico IS NOT NULL) AS comparable
     FROM completions GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
      )
      .all();

  it('matches a fresh aggregation after inserts, upserts, joins, repricing, late settlement and deletes', () => {
    const { dir, env } = tempHome();
    const db = openLedger(env);
    try {
      seed(db);
      scanTranscripts(
        db,
        [{ harness: 'claude', dir: join(claudeConfigDir(dir).configDir, 'projects') }],
        testPricer(),
        {},
        env,
      );
      // A pending completion replaced by its finished report, then a dispatch arriving late, then a new catalog.
      db.transaction(() => {
        recordCompletion(db, c('a5', null, { sessionId: 'S2', endedAt: DAY2 + 5000 }));
        recordDispatch(db, d('t9', { tier: 'premium' }), 't9');
        recordCompletion(db, c('a9', 't9', { servedModel: 'claude-opus-5-5' }));
        reconcileCompletions(db, testPricer('test-catalog-2'));
        db.prepare(`DELETE FROM completions WHERE agent_id = 'a2'`).run();
      });
      expect(fromRollup(db)).toEqual(fromRows(db));
      expect(fromRollup(db).length).toBeGreaterThan(3);
      const sessions = (sql: string) => db.prepare(sql).all();
      expect(
        sessions(`SELECT session_id, requested_model, served_model, day, harness, SUM(runs) AS runs, SUM(dispatched) AS dispatched,
          SUM(completed) AS completed, SUM(verified) AS verified, SUM(input) AS input, CAST(SUM(cost_pico) AS TEXT) AS cost,
          SUM(unpriced) AS unpriced, CAST(SUM(cf_pico) AS TEXT) AS cf, SUM(comparable) AS comparable
          FROM session_rollup GROUP BY 1, 2, 3, 4, 5 HAVING SUM(runs) <> 0 ORDER BY 1, 2, 3, 4, 5`),
      ).toEqual(
        sessions(`SELECT COALESCE(session_id, '') AS session_id, COALESCE(requested_model, '') AS requested_model,
          COALESCE(served_model, '') AS served_model, day, harness, COUNT(*) AS runs, COUNT(dispatch_id) AS dispatched,
          SUM(status = 'ok') AS completed,
          SUM(COALESCE(verified IN ('yes', 'y', 'true', 'pass', 'passed', 'tests', 'ok', 'verified'), 0)) AS verified,
          SUM(COALESCE(input, 0)) AS input, CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS cost,
          SUM(cost_pico IS NULL AND input IS NOT NULL) AS unpriced,
          CAST(COALESCE(SUM(CASE WHEN cost_pico IS NOT NULL THEN counterfactual_pico END), 0) AS TEXT) AS cf,
          SUM(cost_pico IS NOT NULL AND counterfactual_pico IS NOT NULL) AS comparable
          FROM completions GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`),
      );
      const global = (sql: string) => db.prepare(sql).all();
      expect(
        global(`SELECT day, harness, served_model, SUM(runs) AS runs, SUM(input) AS input, CAST(SUM(cost_pico) AS TEXT) AS cost,
          SUM(comparable) AS comparable FROM completion_rollup_global GROUP BY 1, 2, 3 HAVING SUM(runs) <> 0 ORDER BY 1, 2, 3`),
      ).toEqual(
        global(`SELECT day, harness, COALESCE(served_model, '') AS served_model, COUNT(*) AS runs, SUM(COALESCE(input, 0)) AS input,
          CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS cost, SUM(cost_pico IS NOT NULL AND counterfactual_pico IS NOT NULL) AS comparable
          FROM completions GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
      );
    } finally {
      db.close();
    }
  });

  it('a report across a partial first and last day equals the sum of its parts', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      seed(db);
      const whole = queryReport(db, { by: 'day' }).totals!;
      const a = queryReport(db, { by: 'day', until: DAY1 + 500 }).totals!;
      const b = queryReport(db, { by: 'day', since: DAY1 + 500 }).totals!;
      expect(a.runs + b.runs).toBe(whole.runs);
      expect(BigInt(a.cost.pico ?? '0') + BigInt(b.cost.pico ?? '0')).toBe(BigInt(whole.cost.pico!));
      const midnight = Date.parse('2026-12-02T00:00:00Z');
      expect(queryReport(db, { by: 'tier', since: midnight }).totals).toEqual(
        queryReport(db, { by: 'tier', since: midnight - 1 }).totals,
      );
    } finally {
      db.close();
    }
  });
});

describe('days in a time zone, and --session/--project prefixes (issue 21)', () => {
  /** Runs at instants that fall on different days in New York than in UTC, either side of its 2026-03-08 clock change. */
  function seedAround(db: SqlDriver, instants: readonly string[]): void {
    db.transaction(() => {
      instants.forEach((iso, i) => {
        recordDispatch(db, d(`z${i}`, { at: Date.parse(iso) }), `z${i}`);
        recordCompletion(db, c(`za${i}`, `z${i}`, { startedAt: Date.parse(iso), endedAt: Date.parse(iso) }));
      });
      // A denied dispatch (never completes) on the evening of 03-09 in New York: grouped by its own time.
      recordDispatch(
        db,
        d('zd', {
          at: Date.parse('2026-03-10T02:00:00Z'),
          action: 'deny',
          reason: 'over-ceiling-denied',
          tier: null,
          effectiveModel: null,
        }),
        'zd',
      );
    });
    db.transaction(() => reconcileCompletions(db, testPricer()));
  }

  it("--by day groups by the zone's calendar day, through a daylight-saving change, rows and totals alike", () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      // 03-07 03:00Z is the evening of 03-06 in New York (EST); 03-09 04:30Z is 00:30 on 03-09 (EDT, not 23:30 on 03-08).
      seedAround(db, ['2026-03-07T03:00:00Z', '2026-03-07T15:00:00Z', '2026-03-09T04:30:00Z']);
      const days = (zone?: string) =>
        Object.fromEntries(queryReport(db, { by: 'day', timeZone: zone }).map((r) => [r.group, r.runs]));
      expect(days()).toEqual({ '2026-03-07': 2, '2026-03-09': 1, '2026-03-10': 1 });
      expect(days('UTC')).toEqual(days());
      expect(days('America/New_York')).toEqual({ '2026-03-06': 1, '2026-03-07': 1, '2026-03-09': 2 });
      expect(days('Asia/Tokyo')).toEqual({ '2026-03-07': 1, '2026-03-08': 1, '2026-03-09': 1, '2026-03-10': 1 });
      const ny = queryReport(db, { by: 'day', timeZone: 'America/New_York' });
      expect(ny.totals).toEqual(queryReport(db, { by: 'day' }).totals);
      // With since/until at New York midnights the edges are that zone's too.
      const since = Date.parse('2026-03-07T05:00:00Z');
      expect(
        Object.fromEntries(
          queryReport(db, { by: 'day', timeZone: 'America/New_York', since }).map((r) => [r.group, r.runs]),
        ),
      ).toEqual({ '2026-03-07': 1, '2026-03-09': 2 });
      expect(buildReport(db, { by: 'day', timeZone: 'America/New_York' }).filters.timeZone).toBe('America/New_York');
    } finally {
      db.close();
    }
  });

  it('resolves a unique start of a session id or project, and refuses an ambiguous one', async () => {
    const { resolveProject, resolveSession } = await import('../../../src/report/resolve-filter.js');
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      db.transaction(() => {
        recordCompletion(db, c('p1', null, { sessionId: '7f3a9c21-aaaa', project: '/home/u/code/tiergate' }));
        recordCompletion(db, c('p2', null, { sessionId: '7f3b0000-bbbb', project: '/home/u/code/tierlist' }));
        recordCompletion(db, c('p3', null, { sessionId: 'c0ffee00-cccc', project: '/home/u/notes' }));
      });
      expect(resolveSession(db, '7f3a')).toEqual({ value: '7f3a9c21-aaaa' });
      expect(resolveSession(db, 'c0ffee00-cccc')).toEqual({ value: 'c0ffee00-cccc' });
      expect(resolveSession(db, '7f3')).toMatchObject({
        problem: expect.stringContaining("'7f3' starts more than one session id (7f3a9c21-aaaa, 7f3b0000-bbbb)"),
      });
      expect(resolveSession(db, 'zz')).toMatchObject({
        problem: expect.stringContaining("no session id starts with 'zz'"),
      });
      // A directory keeps its meaning (itself and below), relative to the working directory too.
      expect(resolveProject(db, '/home/u/code', '/')).toEqual({ value: '/home/u/code' });
      expect(resolveProject(db, 'code', '/home/u')).toEqual({ value: '/home/u/code' });
      expect(resolveProject(db, 'tierg', '/elsewhere')).toEqual({ value: '/home/u/code/tiergate' });
      expect(resolveProject(db, '/home/u/code/tierl', '/')).toEqual({ value: '/home/u/code/tierlist' });
      expect(resolveProject(db, 'tier', '/elsewhere')).toMatchObject({
        problem: expect.stringContaining('starts more than one project'),
      });
      expect(
        queryReport(db, { by: 'session', project: (resolveProject(db, 'tierg', '/x') as { value: string }).value })
          .totals!.runs,
      ).toBe(1);
    } finally {
      db.close();
    }
  });
});
