import { describe, expect, it } from 'vitest';
import { run as reportCommand } from '../../../src/cli/commands/report.js';
import { ReportSchema } from '../../../src/contracts/report.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { recordCompletion, reconcileCompletions, type CompletionRow } from '../../../src/observer/ledger/store.js';
import { limitRows } from '../../../src/report/limit.js';
import { buildReport } from '../../../src/report/query.js';
import { testPricer } from '../observer/helpers.js';
import { runCaptured, type CommandResult } from '../../support/cli.js';
import { tempHome } from './seed.js';

const AT = Date.parse('2026-11-20T10:00:00Z');
const SESSIONS = 60;

/** Session S<i> has i+1 runs of 1,000 input tokens each; every 7th is served an unpriced model. */
function seeded(): Record<string, string> {
  const { env } = tempHome();
  const db = openLedger(env);
  try {
    db.transaction(() => {
      for (let i = 0; i < SESSIONS; i++) {
        for (let k = 0; k <= i; k++) {
          const row: CompletionRow = {
            harness: 'claude',
            sessionId: `S${String(i).padStart(2, '0')}`,
            callId: null,
            agentId: `a${i}-${k}`,
            subagentType: 'Explore',
            project: '/work/a',
            requestedModel: null,
            servedModel: i % 7 === 0 ? 'claude-mystery-9' : 'claude-haiku-4-5',
            usage: {
              input: 1000,
              output: 0,
              cacheRead: 0,
              cacheWrite5m: 0,
              cacheWrite1h: 0,
              reasoning: 0,
              requests: 1,
            },
            status: 'ok',
            outcome: { result: 'done', verified: 'yes', escalationFrom: null },
            startedAt: AT,
            endedAt: AT + 1000,
            usageSource: 'transcript-tail',
            transcriptPath: null,
            incomplete: false,
            fallbackKey: `a${i}-${k}`,
          };
          recordCompletion(db, row);
        }
      }
      reconcileCompletions(db, testPricer());
    });
  } finally {
    db.close();
  }
  return env;
}

const command = (env: Record<string, string>, argv: string[]): Promise<CommandResult> =>
  runCaptured(reportCommand, ['--by', 'session', '--no-drain', ...argv], env);

describe('report --limit', () => {
  const env = seeded();
  const full = (() => {
    const db = openLedger(env);
    try {
      return buildReport(db, { by: 'session' });
    } finally {
      db.close();
    }
  })();
  // Priced sessions, dearest first: S59 (60 runs), S58, S57, S55 (S56 is unpriced: 56 = 7 × 8).
  const dearest = ['S59', 'S58', 'S57', 'S55'];

  it('keeps the N most expensive groups, dearest first (sessions too), unpriced last, and the totals of every group', () => {
    expect(full.rows).toHaveLength(SESSIONS);
    const top = limitRows(full, 4);
    expect(top.rows.map((r) => r.group)).toEqual(dearest);
    expect(top.omittedRows).toBe(SESSIONS - 4);
    expect(top.totals).toEqual(full.totals);
    expect(ReportSchema.parse(top)).toEqual(top);
    expect(limitRows(full, 0).rows).toEqual(full.rows);
    expect(limitRows(full, SESSIONS).omittedRows).toBe(0);
    // Past every priced session, unpriced ones follow by runs: S56 before S49.
    const priced = full.rows.filter((r) => r.cost.pico !== null).length;
    expect(limitRows(full, priced + 1).rows.some((r) => r.group === 'S56')).toBe(true);
    expect(limitRows(full, priced + 1).rows.some((r) => r.group === 'S49')).toBe(false);
  });

  it('the table shows 50 groups and says how many more; --json and --csv keep every group unless --limit is given', async () => {
    const table = await command(env, []);
    expect(table.code).toBe(0);
    expect(table.out.match(/│ S\d\d /g)).toHaveLength(50);
    expect(table.out).toContain(`${SESSIONS - 50} more session rows not shown`);
    expect(table.out).toMatch(/│ total /);
    const all = await command(env, ['--limit', '0']);
    expect(all.out.match(/│ S\d\d /g)).toHaveLength(SESSIONS);
    expect(all.out).not.toContain('more session rows');

    const json = ReportSchema.parse(JSON.parse((await command(env, ['--json'])).out));
    expect(json.rows).toHaveLength(SESSIONS);
    expect(json.omittedRows).toBeUndefined();
    const limited = ReportSchema.parse(JSON.parse((await command(env, ['--json', '--limit', '4'])).out));
    expect(limited.rows.map((r) => r.group)).toEqual(dearest);
    expect(limited.omittedRows).toBe(SESSIONS - 4);
    expect(limited.totals).toEqual(json.totals);

    // One line per run; --limit keeps the runs of the rows it keeps; --total adds the totals line.
    const runsOf = (rows: { runs: number }[]) => rows.reduce((a, r) => a + r.runs, 0);
    expect((await command(env, ['--csv'])).out.split('\r\n').filter(Boolean)).toHaveLength(json.totals.runs + 1);
    const top2 = ReportSchema.parse(JSON.parse((await command(env, ['--json', '--limit', '2'])).out));
    expect((await command(env, ['--csv', '--limit', '2'])).out.split('\r\n').filter(Boolean)).toHaveLength(
      runsOf(top2.rows) + 1,
    );
    expect((await command(env, ['--csv', '--limit', '2', '--total'])).out.split('\r\n').filter(Boolean)).toHaveLength(
      runsOf(top2.rows) + 2,
    );
    for (const bad of ['-1', 'ten', '1.5']) expect((await command(env, [`--limit=${bad}`])).code).toBe(2);
  });
});
