/**
 * On a day filter, the "subagents: $X" line and the table count a child on the same time basis (issue 29): a child
 * whose requests ran before midnight and whose completion ended after it is in the next day's table, so its requests
 * are in that day's subagent figure too, and not in the day before's.
 */
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../../src/contracts/usage.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { reconcileCompletions, recordCompletion, recordRequest } from '../../../src/observer/ledger/store.js';
import { buildReport } from '../../../src/report/query.js';
import { tempHome, testPricer } from '../observer/helpers.js';

const DAY2 = Date.parse('2026-11-26T00:00:00Z');
const USAGE: Usage = {
  input: 1000,
  output: 100,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
};

describe('whole usage on the table time basis', () => {
  it("a child across midnight: its requests count in the day its completion ended, like the table's row", () => {
    const { env } = tempHome();
    const db = openLedger(env);
    const pricer = testPricer();
    try {
      db.transaction(() => {
        // Parent request and the child's two requests before midnight; the child ends after it.
        for (const [key, at, agentId, side] of [
          ['p1', DAY2 - 60_000, null, false],
          ['c1', DAY2 - 50_000, 'child-1', true],
          ['c2', DAY2 - 40_000, 'child-1', true],
        ] as const) {
          const req = { key, model: 'claude-sonnet-5-5', usage: USAGE, at, sessionId: 'S', agentId, sidechain: side };
          recordRequest(db, 'claude', null, req, pricer.price(req.model, 'claude', USAGE), pricer);
        }
        recordCompletion(db, {
          harness: 'claude',
          sessionId: 'S',
          callId: 'toolu_1',
          agentId: 'child-1',
          subagentType: 'general-purpose',
          project: null,
          requestedModel: null,
          servedModel: 'claude-sonnet-5-5',
          usage: { ...USAGE, input: 2000, output: 200, requests: 2 },
          status: 'ok',
          outcome: { result: 'done', verified: 'yes', escalationFrom: null },
          startedAt: DAY2 - 55_000,
          endedAt: DAY2 + 30_000,
          usageSource: 'transcript-tail',
          transcriptPath: null,
          incomplete: false,
          fallbackKey: 'x',
        });
        reconcileCompletions(db, pricer);
      });
      const day2 = buildReport(db, { by: 'agent', since: DAY2, until: DAY2 + 86_400_000 });
      expect(day2.totals.cost.pico).not.toBeNull();
      expect(day2.wholeUsage?.subagentCost.pico).toBe(day2.totals.cost.pico);
      const day1 = buildReport(db, { by: 'agent', since: DAY2 - 86_400_000, until: DAY2 });
      expect(day1.totals.runs).toBe(0);
      // The day before keeps only the parent's request.
      expect(day1.wholeUsage).toMatchObject({ requests: 1, subagentRequests: 0 });
    } finally {
      db.close();
    }
  });
});
