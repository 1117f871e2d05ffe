/**
 * "Corrections not honoured" in every report view: counted per group from the ledger's enforcement column, filtered
 * like the rest of the row, once per dispatch; in --json (schema-valid), the table's line and the CSV's column.
 */
import { describe, expect, it } from 'vitest';
import { ReportSchema } from '../../../src/contracts/report.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { buildReport } from '../../../src/report/query.js';
import { CSV_COLUMNS, formatCsv } from '../../../src/report/format-csv.js';
import { queryRuns } from '../../../src/report/run-rows.js';
import { formatJson } from '../../../src/report/format-json.js';
import { formatTable } from '../../../src/report/format-table.js';
import { tempHome } from '../observer/helpers.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-12-02T12:00:00Z');

let n = 0;
/** One dispatch and its child's run (plus `followups` more runs of the same dispatch, as Codex follow-up turns are). */
function run(
  db: SqlDriver,
  o: { harness: string; served: string; enforcement: string | null; endedAt: number; followups?: number },
): void {
  const id = ++n;
  const runs = 1 + (o.followups ?? 0);
  for (let k = 0; k < runs; k++) {
    db.prepare(`INSERT INTO completions (id, dedupe_key, harness, served_model, dispatch_id, followup, status, input, output,
      ended_at, day, usage_source) VALUES (?, ?, ?, ?, ?, ?, 'ok', 10, 1, ?, ?, 't')`).run(
      id * 10 + k,
      `c${id}-${k}`,
      o.harness,
      o.served,
      id,
      k === 0 ? 0 : 1,
      o.endedAt,
      new Date(o.endedAt).toISOString().slice(0, 10),
    );
  }
  db.prepare(`INSERT INTO dispatches (id, dedupe_key, harness, at, action, effective_model, completion_id, source, enforcement)
    VALUES (?, ?, ?, ?, 'correct', 'haiku', ?, 'spool', ?)`).run(
    id,
    `d${id}`,
    o.harness,
    o.endedAt - 1000,
    id * 10,
    o.enforcement,
  );
}

function seeded() {
  const { env } = tempHome();
  const db = openLedger(env);
  db.transaction(() => {
    run(db, { harness: 'claude', served: 'claude-opus-5-5', enforcement: 'ignored', endedAt: T0, followups: 2 });
    run(db, { harness: 'claude', served: 'claude-sonnet-5-5', enforcement: 'ignored', endedAt: T0 - 3 * DAY });
    run(db, { harness: 'claude', served: 'claude-haiku-5-5', enforcement: 'honoured', endedAt: T0 });
    run(db, { harness: 'codex', served: 'gpt-6-astra', enforcement: 'ignored', endedAt: T0 });
    run(db, { harness: 'codex', served: 'gpt-6-luna', enforcement: 'not-checked', endedAt: T0 });
    run(db, { harness: 'codex', served: 'gpt-6-luna', enforcement: null, endedAt: T0 });
  });
  return db;
}

describe('report: corrections not honoured', () => {
  it('counts ignored corrections per group, once per dispatch, and in the totals', () => {
    const db = seeded();
    try {
      const byHarness = buildReport(db, { by: 'harness' });
      expect(Object.fromEntries(byHarness.rows.map((r) => [r.group, r.correctionsNotHonoured]))).toEqual({
        claude: 2,
        codex: 1,
      });
      expect(byHarness.totals.correctionsNotHonoured).toBe(3);
      const byModel = buildReport(db, { by: 'model' });
      expect(Object.fromEntries(byModel.rows.map((r) => [r.group, r.correctionsNotHonoured]))).toEqual({
        'claude-opus-5-5': 1,
        'claude-sonnet-5-5': 1,
        'claude-haiku-5-5': 0,
        'gpt-6-astra': 1,
        'gpt-6-luna': 0,
      });
    } finally {
      db.close();
    }
  });

  it('follows the filters of the rest of the row (time, harness, mid-day edges)', () => {
    const db = seeded();
    try {
      expect(buildReport(db, { by: 'harness', since: T0 - DAY }).totals.correctionsNotHonoured).toBe(2);
      expect(buildReport(db, { by: 'harness', harness: 'codex' }).totals.correctionsNotHonoured).toBe(1);
      expect(buildReport(db, { by: 'harness', since: T0 - 1, until: T0 + 1 }).totals.correctionsNotHonoured).toBe(2);
      expect(buildReport(db, { by: 'harness', until: T0 - DAY }).totals.correctionsNotHonoured).toBe(1);
    } finally {
      db.close();
    }
  });

  it('finds the rows through the partial index of ignored dispatches', () => {
    const db = seeded();
    try {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN SELECT completion_id FROM dispatches WHERE enforcement = 'ignored'`)
        .all<{ detail: string }>()
        .map((r) => r.detail)
        .join(' ');
      expect(plan).toMatch(/dispatches_ignored/);
    } finally {
      db.close();
    }
  });

  it('--json validates and carries the count; the table says it in a line; the CSV has a column', () => {
    const db = seeded();
    try {
      const report = buildReport(db, { by: 'harness' });
      const json = ReportSchema.parse(JSON.parse(formatJson(report)));
      expect(json.totals.correctionsNotHonoured).toBe(3);
      expect(formatTable(report)).toMatch(
        /corrections not honoured: 3 \(claude 2, codex 1\): the harness ran another model than tiergate set/,
      );
      const csv = formatCsv(report, queryRuns(db, { by: 'harness' }))
        .split('\r\n')
        .filter(Boolean);
      const at = CSV_COLUMNS.indexOf('enforcement');
      expect(csv.filter((l) => l.split(',')[at] === 'ignored')).toHaveLength(3);
      // Nothing ignored: no line at all.
      const none = buildReport(db, { by: 'harness', harness: 'claude', since: T0 - 1 });
      expect(none.totals.correctionsNotHonoured).toBe(1);
      const clean = {
        ...none,
        rows: none.rows.map((r) => ({ ...r, correctionsNotHonoured: 0 })),
        totals: { ...none.totals, correctionsNotHonoured: 0 },
      };
      expect(formatTable(clean)).not.toMatch(/not honoured/);
    } finally {
      db.close();
    }
  });
});
