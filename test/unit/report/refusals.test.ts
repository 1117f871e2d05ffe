/**
 * Stopped children and fan-out limit denials as decisions of their own kind (issue 33 item 5): spooled, drained into
 * the ledger (one stopped record per child however often it was spooled), never joined to a completion, and shown by
 * every report view (table, --json, --csv, HTML) and by `tiergate budget`, apart from the runs and denials they are not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runObserver } from '../../../src/collect/drain.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { ReportSchema } from '../../../src/contracts/report.js';
import type { SpoolRecord } from '../../../src/contracts/spool.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { formatCsv } from '../../../src/report/format-csv.js';
import { formatHtml } from '../../../src/report/format-html.js';
import { formatTable } from '../../../src/report/format-table.js';
import { buildHtmlData } from '../../../src/report/html/data.js';
import { buildReport } from '../../../src/report/query.js';
import { refusalCounts, refusalTextLines } from '../../../src/report/refusals.js';
import { queryRuns } from '../../../src/report/run-rows.js';
import { stoppedRecord } from '../../../src/runtime/child-stop.js';
import { tempHome } from '../observer/helpers.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';

afterEach(() => resetSpoolFile());

const NO_REFUSALS = {
  stopped: { today: 0, month: 0 },
  limitDenied: { today: 0, month: 0 },
  asked: { today: 0, month: 0, ran: { today: 0, month: 0 } },
};

const NOW = Date.now();
const who = { harness: 'claude' as const, sessionId: 's1', agent: 'general-purpose' };

const obs = (callId: string, at: number): DispatchObservation =>
  claudeDispatchObservation({ sessionId: 's1', callId, requestedModel: 'sonnet', cwd: '/p', at });

const detail = (kind: 'allow' | 'limit-deny' | 'ask') => ({
  kind,
  without: 'claude-sonnet-5-5',
  withoutFrom: 'call' as const,
  withoutSource: null,
  to: null,
  toModel: 'claude-sonnet-5-5',
  withoutRates: null,
  chosenRates: null,
  budget: null,
});

function completion(callId: string, agentId: string, endedAt: number): SpoolRecord {
  return {
    type: 'completion',
    observation: {
      kind: 'completion',
      harness: 'claude',
      sessionId: 's1',
      callId,
      agentId,
      subagentType: 'general-purpose',
      servedModel: 'claude-sonnet-5-5',
      usage: { input: 1000, output: 100, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
      status: 'ok',
      outcome: { result: null, verified: null, escalationFrom: null },
      startedAt: endedAt - 3000,
      endedAt,
      usageSource: 'transcript-tail',
      dedupeKey: null,
    },
    transcriptPath: null,
  };
}

/** A dispatch past a budget under budgets.action "ask": the prompt raised (the record dispatch.ts writes). */
const asked = (callId: string, at: number): SpoolRecord => ({
  type: 'dispatch',
  observation: obs(callId, at),
  decision: {
    action: 'ask',
    reason: 'budget-asked',
    tier: null,
    effectiveModel: 'sonnet',
    catalogVersion: null,
    detail: detail('ask'),
  },
});

function seeded(extra: SpoolRecord[] = []) {
  const { env } = tempHome();
  const lines: SpoolRecord[] = [
    // One child ran (its dispatch and its completion), one dispatch was refused by a limit.
    {
      type: 'dispatch',
      observation: obs('toolu_1', NOW - 5000),
      decision: {
        action: 'allow',
        reason: 'within-ceiling',
        tier: null,
        effectiveModel: 'sonnet',
        catalogVersion: null,
        detail: detail('allow'),
      },
    },
    completion('toolu_1', 'a1', NOW - 1000),
    {
      type: 'dispatch',
      observation: obs('toolu_2', NOW - 4500),
      decision: {
        action: 'deny',
        reason: 'limit-denied',
        tier: null,
        effectiveModel: null,
        catalogVersion: null,
        detail: detail('limit-deny'),
      },
    },
    // The running child a1 stopped; spooled twice (two processes), one record in the ledger.
    stoppedRecord(who, 'a1', '/p', NOW - 2000),
    stoppedRecord(who, 'a1', '/p', NOW - 1500),
    ...extra,
  ];
  for (const l of lines) appendSpool(l, env);
  const db = openLedger(env);
  runObserver(env, loadPricer(env), db);
  return { env, db };
}

describe('stopped children and limit denials', () => {
  it('the ledger holds one stopped decision per child, never joined to the child run', () => {
    const { db } = seeded();
    const kinds = db
      .prepare('SELECT kind, completion_id AS c FROM decisions ORDER BY dispatch_id')
      .all<{ kind: string; c: number | null }>();
    expect(kinds.map((k) => k.kind)).toEqual(['allow', 'limit-deny', 'stopped']);
    expect(kinds.find((k) => k.kind === 'stopped')!.c).toBeNull();
    expect(kinds.find((k) => k.kind === 'allow')!.c).not.toBeNull();
    db.close();
  });

  it('report: runs and denials as before, limit denials among the denials, stopped children apart', () => {
    const { db } = seeded();
    const report = buildReport(db, { by: 'agent' }, new Date(NOW));
    expect(ReportSchema.safeParse(report).success).toBe(true);
    const t = report.totals;
    // The run and the limit-denied dispatch; the stopped record is neither a run nor a dispatch.
    expect(t).toMatchObject({ runs: 2, dispatches: 2, denied: 1, limitDenied: 1, stopped: 1 });
    expect(report.rows).toHaveLength(1);
    expect(report.rows[0]).toMatchObject({ group: 'general-purpose', stopped: 1, limitDenied: 1 });

    const table = formatTable(report, { width: 200, color: false });
    expect(table).toContain(
      'denied: 1 (1 by a fan-out limit), of which retried on a cheaper model: 0, spend avoided: not claimed without usage.',
    );
    expect(table).toContain(
      'stopped: 1 running child told to stop when a budget ran out (budgets.action "stop"); what each spent until then is in the cost.',
    );

    const runs = queryRuns(db, { by: 'agent' });
    const byStatus = (s: string) => runs.filter((r) => r.status === s);
    expect(byStatus('stopped')).toHaveLength(1);
    expect(byStatus('stopped')[0]!.decision).toBe('stopped');
    expect(byStatus('denied').map((r) => r.decision)).toEqual(['limit-deny']);
    const csv = formatCsv(report, runs, { total: true });
    expect(csv).toMatch(/,stopped,,,stopped,/);
    expect(csv).toMatch(/,limit-deny,,,denied,/);
    expect(csv).toContain(',"2 runs, 1 stopped",');

    const html = formatHtml(buildHtmlData(db, { by: 'agent' }, new Date(NOW)), { chartLib: '/* stand-in */' });
    expect(html).toContain('<span data-total="limitDenied">1</span> by a limit');
    expect(html).toContain('<span data-total="stopped">1</span> stopped');
    expect(html).toContain('(1 denied, 1 by a limit; 1 stopped)');
    db.close();
  });

  it('tiergate budget: counts today and this month, with the policy that makes them', () => {
    const { db } = seeded();
    const c = refusalCounts(db, NOW);
    expect(c).toEqual({ ...NO_REFUSALS, stopped: { today: 1, month: 1 }, limitDenied: { today: 1, month: 1 } });
    const policy = {
      ...DEFAULT_POLICY,
      budgets: { ...DEFAULT_POLICY.budgets, session: '1', action: 'stop' as const },
      limits: { concurrentSubagents: 2 },
    };
    expect(refusalTextLines(policy, c)).toEqual([
      '  stopped children: 1 today, 1 this month (budgets.action "stop": a running child stops at its next tool call once a budget is spent)',
      '  limit denials: 1 today, 1 this month (limits.concurrentSubagents 2)',
    ]);
    // Neither set and none made: no line.
    expect(refusalTextLines(DEFAULT_POLICY, NO_REFUSALS)).toEqual([]);
    // None set now, some made this month: still shown.
    expect(refusalTextLines(DEFAULT_POLICY, c)[1]).toBe('  limit denials: 1 today, 1 this month (no limit set now)');
    db.close();
  });
});

describe('asks (issue 33 item 3): decisions of their own kind', () => {
  // Two asks: the person approved the first (its child ran and joined by its call id), refused the second (no child).
  const asks = () =>
    seeded([asked('toolu_3', NOW - 900), completion('toolu_3', 'a3', NOW - 100), asked('toolu_4', NOW - 800)]);

  it('report: asked and askedRan in --json, the ran ask joined through its decision record; neither is a denial', () => {
    const { db } = asks();
    const joined = db
      .prepare("SELECT call_id AS id, completion_id AS c FROM decisions WHERE kind = 'ask' ORDER BY call_id")
      .all<{ id: string; c: number | null }>();
    expect(joined.map((j) => [j.id, j.c !== null])).toEqual([
      ['toolu_3', true],
      ['toolu_4', false],
    ]);
    const report = buildReport(db, { by: 'agent' }, new Date(NOW));
    expect(ReportSchema.safeParse(report).success).toBe(true);
    // Runs: toolu_1's and toolu_3's children, the limit denial and the unanswered ask; denials unchanged.
    expect(report.totals).toMatchObject({ runs: 4, dispatches: 4, denied: 1, limitDenied: 1, asked: 2, askedRan: 1 });
    expect(report.rows[0]).toMatchObject({ group: 'general-purpose', asked: 2, askedRan: 1 });
    // --by model: the ran ask groups with its run (served model), the other with the open dispatches (no model).
    const byModel = buildReport(db, { by: 'model' }, new Date(NOW));
    expect(byModel.rows.map((r) => [r.group, r.asked, r.askedRan])).toEqual(
      expect.arrayContaining([
        ['claude-sonnet-5-5', 1, 1],
        [null, 1, 0],
      ]),
    );
    expect(formatTable(report, { width: 200, color: false })).toContain(
      'asked: 2 dispatches at the permission prompt (an "ask" policy), of which ran (approved): 1.',
    );

    const runs = queryRuns(db, { by: 'agent' });
    const ask = runs.filter((r) => r.decision === 'ask');
    expect(ask.map((r) => r.status).sort()).toEqual(['asked', 'ok']);
    expect(formatCsv(report, runs, { total: true })).toMatch(/,ask,,,asked,/);
    // The total line counts the ask no child followed beside the runs (the approved one is among the runs).
    expect(formatCsv(report, runs, { total: true }).trimEnd().split('\r\n').at(-1)).toContain(
      ',"4 runs, 1 stopped, 1 asked",',
    );

    const html = formatHtml(buildHtmlData(db, { by: 'agent' }, new Date(NOW)), { chartLib: '/* stand-in */' });
    expect(html).toContain('<div class="label">Asked</div><div class="value"><span data-total="asked">2</span>');
    expect(html).toContain('<span data-total="askedRan">1</span> approved and ran');
    db.close();
  });

  it('no ask raised: no asks card, no asks note, asked 0', () => {
    const { db } = seeded();
    const report = buildReport(db, { by: 'agent' }, new Date(NOW));
    expect(report.totals).toMatchObject({ asked: 0, askedRan: 0 });
    expect(formatTable(report, { width: 200, color: false })).not.toContain('asked:');
    const html = formatHtml(buildHtmlData(db, { by: 'agent' }, new Date(NOW)), { chartLib: '/* stand-in */' });
    expect(html).not.toContain('data-total="asked"');
    db.close();
  });

  it('tiergate budget: asks today and this month, with those approved and run', () => {
    const { db } = asks();
    const c = refusalCounts(db, NOW);
    expect(c.asked).toEqual({ today: 2, month: 2, ran: { today: 1, month: 1 } });
    const policy = { ...DEFAULT_POLICY, budgets: { ...DEFAULT_POLICY.budgets, day: '1', action: 'ask' as const } };
    expect(refusalTextLines(policy, c)).toContain(
      '  asks: 2 today (1 approved and ran), 2 this month (1 approved and ran) (budgets.action "ask": the permission prompt, refused where no one can answer)',
    );
    // No ask set now and none raised: no line; some raised this month: shown.
    expect(refusalTextLines(DEFAULT_POLICY, NO_REFUSALS)).toEqual([]);
    expect(refusalTextLines(DEFAULT_POLICY, c).at(-1)).toMatch(/^ {2}asks: 2 today .*\(no ask set now\)$/);
    db.close();
  });
});
