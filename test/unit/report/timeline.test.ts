/**
 * issue 34 item 3: `--by day` is a timeline without holes (every day of the period, zero rows for the empty ones, no
 * --limit cut); an empty ledger says how to fill it; a damaged one is set aside, said on stderr, and exits 1.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run as reportCommand } from '../../../src/cli/commands/report.js';
import { ReportSchema } from '../../../src/contracts/report.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { recordCompletion, reconcileCompletions, type CompletionRow } from '../../../src/observer/ledger/store.js';
import { paths } from '../../../src/io/paths.js';
import { testPricer } from '../observer/helpers.js';
import { runCaptured, type CommandResult } from '../../support/cli.js';
import { tempHome } from './seed.js';

const DAY = 86_400_000;
const START = Date.parse('2026-09-01T12:00:00Z');

/** One run on each of `days` (offsets from 2026-09-01), `1000 * (offset + 1)` input tokens: later days dearer. */
function seeded(days: number[]): Record<string, string> {
  const { env } = tempHome();
  const db = openLedger(env);
  try {
    db.transaction(() => {
      for (const d of days) {
        const row: CompletionRow = {
          harness: 'claude',
          sessionId: `S${d}`,
          callId: null,
          agentId: `a${d}`,
          subagentType: `agent-${d % 3}`,
          project: '/work/a',
          requestedModel: null,
          servedModel: 'claude-haiku-4-5',
          usage: {
            input: 1000 * (d + 1),
            output: 0,
            cacheRead: 0,
            cacheWrite5m: 0,
            cacheWrite1h: 0,
            reasoning: 0,
            requests: 1,
          },
          status: 'ok',
          outcome: { result: 'done', verified: 'yes', escalationFrom: null },
          startedAt: START + d * DAY,
          endedAt: START + d * DAY + 1000,
          usageSource: 'transcript-tail',
          transcriptPath: null,
          incomplete: false,
          fallbackKey: `a${d}`,
        };
        recordCompletion(db, row);
      }
      reconcileCompletions(db, testPricer());
    });
  } finally {
    db.close();
  }
  return env;
}

const command = (env: Record<string, string>, argv: string[]): Promise<CommandResult> =>
  runCaptured(reportCommand, ['--no-drain', '--timezone', 'UTC', ...argv], env);
const json = async (env: Record<string, string>, argv: string[]) => {
  const r = await command(env, [...argv, '--json']);
  expect(r.code).toBe(0);
  return ReportSchema.parse(JSON.parse(r.out));
};
const dayOf = (offset: number) => new Date(START + offset * DAY).toISOString().slice(0, 10);

describe('report --by day: every day of the period', () => {
  it('fills the days without runs with zero rows, in order, from the first to the last recorded day', async () => {
    const env = seeded([0, 3, 9]);
    const r = await json(env, ['--by', 'day']);
    expect(r.rows.map((x) => x.group)).toEqual(Array.from({ length: 10 }, (_, i) => dayOf(i)));
    expect(r.rows.map((x) => x.runs)).toEqual([1, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
    expect(r.rows[1]!.cost.pico).toBeNull();
    expect(r.totals.runs).toBe(3);
  });

  it('a --since/--until period (--until a day: through that day) shows its every day, runs or not', async () => {
    const env = seeded([3]);
    const r = await json(env, ['--by', 'day', '--since', dayOf(1), '--until', dayOf(5)]);
    expect(r.rows.map((x) => x.group)).toEqual([1, 2, 3, 4, 5].map(dayOf));
    expect(r.rows.map((x) => x.runs)).toEqual([0, 0, 1, 0, 0]);
  });

  it('62 days: the table shows all 62 (its default limit of 50 is for the other groupings), --limit too', async () => {
    const env = seeded(Array.from({ length: 62 }, (_, i) => i).filter((i) => i % 5 !== 2));
    const table = await command(env, ['--by', 'day']);
    expect(table.code).toBe(0);
    expect(table.out.match(/│ 2026-\d\d-\d\d /g)).toHaveLength(62);
    expect(table.out).not.toContain('more day rows');
    const limited = await json(env, ['--by', 'day', '--limit', '5']);
    expect(limited.rows).toHaveLength(62);
    expect(limited.omittedRows ?? 0).toBe(0);
    // The other groupings still keep the N dearest: agent-1 (days 1, 4, ...) and agent-0 are dearer than agent-2.
    const agents = await json(env, ['--by', 'agent', '--limit', '2']);
    expect(agents.rows).toHaveLength(2);
    expect(agents.omittedRows).toBe(1);
  });
});

describe('report on an empty or damaged ledger', () => {
  it('an empty ledger: the table says how to record runs; --json and --csv stay valid and empty', async () => {
    const { env } = tempHome();
    const table = await command(env, []);
    expect(table.code).toBe(0);
    expect(table.out).toBe(
      'No subagent runs recorded yet: run a harness with tiergate installed, or `tiergate scan` to backfill\n',
    );
    for (const by of ['agent', 'day']) {
      const r = await json(env, ['--by', by]);
      expect(r.rows).toEqual([]);
      expect(r.totals.runs).toBe(0);
    }
    const csv = await command(env, ['--csv']);
    expect(csv.code).toBe(0);
    expect(csv.out.split('\r\n').filter(Boolean)).toHaveLength(1);
  });

  it('a damaged ledger: said on stderr, kept aside user-only with a timestamp, a fresh one reported, exit 1', async () => {
    const env = seeded([0, 1]);
    const ledger = paths(env).ledger;
    writeFileSync(ledger, Buffer.alloc(8192, 0x5a), { mode: 0o644 });
    const r = await command(env, ['--json']);
    expect(r.code).toBe(1);
    expect(ReportSchema.parse(JSON.parse(r.out)).rows).toEqual([]);
    const aside = readdirSync(join(ledger, '..')).filter((f) => /^ledger\.sqlite\.corrupt-\d{4}-\d\d-\d\dT/.test(f));
    expect(aside).toHaveLength(1);
    expect(statSync(join(ledger, '..', aside[0]!)).mode & 0o777).toBe(0o600);
    expect(r.err).toContain('the ledger was damaged');
    expect(r.err).toContain(aside[0]);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    // Rebuilt once: the next report is an ordinary one.
    const again = await command(env, ['--json']);
    expect(again.code).toBe(0);
    expect(again.err).toBe('');
  });
});
