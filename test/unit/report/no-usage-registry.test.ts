/**
 * "Usage not reported" comes from the registry (each descriptor's reportsUsage), never from a harness name in the
 * report's SQL: a harness the registry says reports no usage gets the label, over the raw completions, the rollups and
 * never-completed dispatches alike, with nothing else changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DESCRIPTORS } from '../../../src/descriptors/index.js';
import { HARNESS_IDS, type Harness } from '../../../src/contracts/harness.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { recordCompletion, recordDispatch } from '../../../src/observer/ledger/store.js';
import { noUsageHarnesses, queryReport } from '../../../src/report/query.js';

const DAY = Date.parse('2026-12-01T10:00:00Z');
/** A harness the registry does not have (yet): the ledger stores any id. */
const NEW = 'newharness' as Harness;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function ledger(): SqlDriver {
  const dir = mkdtempSync(join(tmpdir(), 'tg-no-usage-'));
  dirs.push(dir);
  const db = openLedger({ TIERGATE_HOME: join(dir, 'tg'), HOME: dir });
  db.transaction(() => {
    for (const [i, harness] of [NEW, NEW, 'codex'].entries())
      recordCompletion(db, {
        harness: harness as Harness,
        sessionId: `S${i}`,
        callId: null,
        agentId: `a${i}`,
        subagentType: 'task',
        project: '/work/a',
        requestedModel: null,
        servedModel: null,
        usage: null,
        status: 'ok',
        outcome: { result: null, verified: null, escalationFrom: null },
        startedAt: DAY,
        endedAt: DAY + 1000 * (i + 1),
        usageSource: 'hook',
        transcriptPath: null,
        incomplete: false,
        fallbackKey: `a${i}`,
      });
    // A dispatch of the new harness that never completed: counted with its runs.
    recordDispatch(
      db,
      {
        harness: NEW,
        sessionId: 'S9',
        callId: 't9',
        at: DAY,
        project: '/work/a',
        parentModel: 'm',
        parentModelSource: 't',
        requestedModel: null,
        requestedAgent: null,
        requestedTier: null,
        subagentType: 'task',
        action: 'allow',
        reason: 'within-ceiling',
        tier: null,
        effectiveModel: null,
        catalogVersion: 'c',
        escalationFrom: null,
        childAgentId: null,
        source: 'spool',
      },
      't9',
    );
  });
  return db;
}

const label = (rows: ReturnType<typeof queryReport>, g: string) => rows.find((r) => r.group === g)?.usageNotReported;

describe('usage not reported, from the registry', () => {
  it("is the registry's harnesses whose descriptor says reportsUsage: false", () => {
    expect(noUsageHarnesses()).toEqual(HARNESS_IDS.filter((h) => !DESCRIPTORS[h].reportsUsage));
    expect(noUsageHarnesses()).toEqual(['cursor']);
    expect(noUsageHarnesses([{ id: NEW, reportsUsage: false }, DESCRIPTORS.codex])).toEqual([NEW]);
  });

  it('labels a new harness that only the registry names, over completions, rollups and open dispatches', () => {
    const db = ledger();
    try {
      const registry = noUsageHarnesses([...HARNESS_IDS.map((h) => DESCRIPTORS[h]), { id: NEW, reportsUsage: false }]);
      // Whole days: read from the rollups. A --since inside the day: from the completions.
      for (const q of [{ by: 'harness' as const }, { by: 'harness' as const, since: DAY - 1 }]) {
        const rows = queryReport(db, q, null, registry);
        expect(label(rows, NEW), JSON.stringify(q)).toBe(true);
        expect(rows.find((r) => r.group === NEW)!.runs).toBe(3);
        // Codex reports usage: its run without any is pending-like, not "not reported".
        expect(label(rows, 'codex')).toBe(false);
        // Without the registry entry nothing names it.
        expect(label(queryReport(db, q), NEW)).toBe(false);
      }
      // Filters keep their own parameters after the registry's.
      const filtered = queryReport(db, { by: 'harness', harness: NEW, since: DAY - 1 }, null, registry);
      expect(filtered.map((r) => [r.group, r.usageNotReported])).toEqual([[NEW, true]]);
      expect(queryReport(db, { by: 'harness', project: '/work/a' }, null, []).some((r) => r.usageNotReported)).toBe(
        false,
      );
    } finally {
      db.close();
    }
  });
});
