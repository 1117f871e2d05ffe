/**
 * Verified enforcement (src/observer/enforcement.ts): the classification by resolved catalog id, the observer pass that
 * records it on the dispatch row, and the marker file the dispatch path reads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CompletionObservation, DispatchObservation } from '../../../src/contracts/observation.js';
import type { SpoolRecord } from '../../../src/contracts/spool.js';
import { paths } from '../../../src/io/paths.js';
import { runObserver } from '../../../src/collect/drain.js';
import { checkEnforcement, classifyEnforcement, type EnforcementInput } from '../../../src/observer/enforcement.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import type { Pricer } from '../../../src/observer/pricing.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { readRewriteMarker, rewriteMarkerPath } from '../../../src/observer/rewrite-marker.js';
import { tempHome, testPricer } from './helpers.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';

/**
 * The resolver of the bundled snapshot (aliases, normalisation, estimates): what a real observer pass uses. Loaded on
 * first use, since the policy's slow path is registered by the test setup's beforeAll, after this module is imported.
 */
let resolver: NonNullable<Pricer['identify']> | undefined;
const identify: NonNullable<Pricer['identify']> = (...args) => {
  resolver ??= loadPricer(tempHome().env).identify!;
  return resolver(...args);
};

const corrected = (over: Partial<EnforcementInput>): EnforcementInput => ({
  harness: 'claude',
  action: 'correct',
  decided: 'haiku',
  requested: 'opus',
  served: 'claude-haiku-5-5',
  ...over,
});

describe('classifyEnforcement', () => {
  it.each([
    ['the alias and the served id', 'haiku', 'claude-haiku-5-5'],
    ['a dated served id', 'haiku', 'claude-haiku-5-5-20260101'],
    ['a provider-prefixed served id', 'haiku', 'anthropic/claude-haiku-5-5'],
    ['a Bedrock served id', 'haiku', 'us.anthropic.claude-haiku-5-5-20260101-v1:0'],
    ['a full decided id and the alias served', 'claude-sonnet-5-5', 'sonnet'],
  ])('honoured: %s resolve to the same catalog id', (_, decided, served) => {
    expect(classifyEnforcement(corrected({ decided, served }), identify)).toBe('honoured');
  });

  it('ignored: the child ran on the original request, or on a third model', () => {
    expect(classifyEnforcement(corrected({ served: 'claude-opus-5-5' }), identify)).toBe('ignored');
    expect(classifyEnforcement(corrected({ served: 'claude-sonnet-5-5-20260101' }), identify)).toBe('ignored');
    // An estimate that lands on another line is still another model.
    expect(classifyEnforcement(corrected({ served: 'claude-opus-5-6' }), identify)).toBe('ignored');
  });

  it('ignored on Codex too (the comparison is per harness, through its own aliases)', () => {
    expect(
      classifyEnforcement(
        { harness: 'codex', action: 'correct', decided: 'gpt-6-luna', requested: 'gpt-6-astra', served: 'gpt-6-astra' },
        identify,
      ),
    ).toBe('ignored');
    expect(
      classifyEnforcement(
        {
          harness: 'codex',
          action: 'correct',
          decided: 'gpt-6-luna',
          requested: 'gpt-6-astra',
          served: 'openai/gpt-6-luna',
        },
        identify,
      ),
    ).toBe('honoured');
  });

  it('not-checked: no correction, no served model, a name the resolver does not know, or only an estimate agrees', () => {
    for (const action of ['allow', 'deny', null]) {
      expect(classifyEnforcement(corrected({ action, served: 'claude-opus-5-5' }), identify)).toBe('not-checked');
    }
    expect(classifyEnforcement(corrected({ served: null }), identify)).toBe('not-checked');
    expect(classifyEnforcement(corrected({ decided: null }), identify)).toBe('not-checked');
    expect(classifyEnforcement(corrected({ served: 'claude-haiku-5-5-served' }), identify)).toBe('not-checked');
    expect(classifyEnforcement(corrected({ decided: 'tiergate-made-up' }), identify)).toBe('not-checked');
    // claude-haiku-5-6 is not in the catalog and estimates to claude-haiku-5-5: the same line, maybe not the same model.
    expect(classifyEnforcement(corrected({ served: 'claude-haiku-5-6' }), identify)).toBe('not-checked');
  });
});

const AT = Date.parse('2026-12-02T14:06:52Z');

function dispatch(
  callId: string,
  decision: Partial<Extract<SpoolRecord, { type: 'dispatch' }>['decision']> = {},
  over: Partial<DispatchObservation> = {},
): SpoolRecord {
  return {
    type: 'dispatch',
    observation: claudeDispatchObservation({ callId, parentModel: 'claude-sonnet-5-5', at: AT, ...over }),
    decision: {
      action: 'correct',
      reason: 'over-ceiling-corrected',
      tier: 'cheap',
      effectiveModel: 'haiku',
      catalogVersion: 'v',
      ...decision,
    },
  };
}

function completion(
  callId: string,
  servedModel: string | null,
  over: Partial<CompletionObservation> = {},
): SpoolRecord {
  return {
    type: 'completion',
    observation: {
      kind: 'completion',
      harness: 'claude',
      sessionId: 'S1',
      callId,
      agentId: `agent-${callId}`,
      subagentType: 'general-purpose',
      servedModel,
      usage: { input: 100, output: 20, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
      status: 'ok',
      outcome: { result: 'done', verified: 'yes', escalationFrom: null },
      startedAt: AT,
      endedAt: AT + 3000,
      usageSource: 'transcript-tail',
      dedupeKey: null,
      ...over,
    },
    transcriptPath: null,
  };
}

/** The test pricer's exact costs, with the bundled snapshot's resolver for the comparison. */
const pricer = (): Pricer => ({ ...testPricer(), identify });

function spool(env: Record<string, string>, records: SpoolRecord[]): void {
  resetSpoolFile();
  for (const r of records) appendSpool(r, env);
}

const enforcement = (db: ReturnType<typeof openLedger>) =>
  Object.fromEntries(
    db
      .prepare('SELECT call_id, enforcement FROM dispatches ORDER BY call_id')
      .all<{ call_id: string; enforcement: string | null }>()
      .map((r) => [r.call_id, r.enforcement]),
  );

describe('the observer pass records enforcement on the dispatch row', () => {
  it('a correction to haiku served by claude-opus-5-5 is ignored; honoured and uncorrected rows say so; a marker is written once per new row', () => {
    const { env } = tempHome();
    spool(env, [
      dispatch('t-ignored'),
      completion('t-ignored', 'claude-opus-5-5'),
      dispatch('t-honoured'),
      completion('t-honoured', 'claude-haiku-5-5-20260101'),
      dispatch(
        't-allow',
        { action: 'allow', reason: 'within-ceiling', effectiveModel: 'haiku' },
        { requestedModel: 'haiku' },
      ),
      completion('t-allow', 'claude-opus-5-5'),
    ]);
    const db = openLedger(env);
    try {
      runObserver(env, pricer(), db);
      // An allow is not checked: its column stays NULL (read as not-checked).
      expect(enforcement(db)).toEqual({ 't-allow': null, 't-honoured': 'honoured', 't-ignored': 'ignored' });
      const marker = readRewriteMarker(env, 'claude');
      expect(marker).toMatchObject({
        harness: 'claude',
        ignored: 1,
        last: { decided: 'haiku', requested: 'opus', served: 'claude-opus-5-5' },
      });
      expect(readRewriteMarker(env, 'codex')).toBeNull();
      expect(readFileSync(paths(env).diagnostics, 'utf8')).toMatch(
        /claude did not honour 1 correction\(s\): ran claude-opus-5-5 where tiergate set haiku/,
      );
      // A second pass has nothing new: the marker's count stays.
      runObserver(env, pricer(), db);
      expect(readRewriteMarker(env, 'claude')!.ignored).toBe(1);
      // Another ignored correction adds to it.
      spool(env, [dispatch('t-ignored-2'), completion('t-ignored-2', 'claude-sonnet-5-5')]);
      runObserver(env, pricer(), db);
      expect(readRewriteMarker(env, 'claude')).toMatchObject({ ignored: 2, last: { served: 'claude-sonnet-5-5' } });
    } finally {
      db.close();
    }
  });

  it('waits for a completion that is pending, and for a dispatch whose completion has not arrived', () => {
    const { env } = tempHome();
    spool(env, [dispatch('t1'), completion('t1', null, { status: 'pending', usage: null }), dispatch('t2')]);
    const db = openLedger(env);
    try {
      runObserver(env, pricer(), db);
      expect(enforcement(db)).toEqual({ t1: null, t2: null });
      spool(env, [completion('t1', 'claude-opus-5-5'), completion('t2', 'claude-haiku-5-5')]);
      runObserver(env, pricer(), db);
      expect(enforcement(db)).toEqual({ t1: 'ignored', t2: 'honoured' });
    } finally {
      db.close();
    }
  });

  it('checks nothing without a resolver (no catalog loaded): the rows wait for a pass that has one', () => {
    const { env } = tempHome();
    spool(env, [dispatch('t1'), completion('t1', 'claude-opus-5-5')]);
    const db = openLedger(env);
    try {
      runObserver(env, testPricer(), db);
      expect(enforcement(db)).toEqual({ t1: null });
      expect(existsSync(rewriteMarkerPath(env, 'claude'))).toBe(false);
      runObserver(env, pricer(), db);
      expect(enforcement(db)).toEqual({ t1: 'ignored' });
    } finally {
      db.close();
    }
  });

  it("a scanned dispatch (no decision) replaced by the hook's correction is checked", () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      db.prepare(
        `INSERT INTO dispatches (dedupe_key, harness, call_id, at, source) VALUES ('claude:call:t1', 'claude', 't1', 1, 'scan')`,
      ).run();
      runObserver(env, pricer(), db);
      expect(enforcement(db)).toEqual({ t1: null });
      spool(env, [dispatch('t1'), completion('t1', 'claude-opus-5-5')]);
      runObserver(env, pricer(), db);
      expect(enforcement(db)).toEqual({ t1: 'ignored' });
    } finally {
      db.close();
    }
  });

  it('works in batches and stops at the deadline between them; the next pass goes on from there', () => {
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      db.transaction(() => {
        for (let i = 1; i <= 1200; i++) {
          db.prepare(`INSERT INTO completions (id, dedupe_key, harness, served_model, status, ended_at, day, usage_source)
            VALUES (?, ?, 'claude', 'claude-haiku-5-5', 'ok', 1, '2026-12-02', 't')`).run(i, `c${i}`);
          db.prepare(`INSERT INTO dispatches (dedupe_key, harness, at, action, effective_model, completion_id, source)
            VALUES (?, 'claude', 1, 'correct', 'haiku', ?, 'spool')`).run(`d${i}`, i);
        }
      });
      const todo = () =>
        db.prepare('SELECT COUNT(*) AS n FROM dispatches WHERE enforcement IS NULL').get<{ n: number }>()!.n;
      expect(todo()).toBe(1200);
      expect(checkEnforcement(db, identify, env, Date.now() - 1)).toEqual({ checked: 500, ignored: 0 });
      expect(todo()).toBe(700);
      expect(checkEnforcement(db, identify, env)).toEqual({ checked: 700, ignored: 0 });
      expect(todo()).toBe(0);
      // The pass walks the partial index of unchecked corrections, not the whole table.
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN SELECT d.id FROM dispatches d JOIN completions c ON c.id = d.completion_id
        WHERE d.enforcement IS NULL AND d.action = 'correct' AND d.completion_id IS NOT NULL AND c.status <> 'pending' AND d.id > 0 ORDER BY d.id LIMIT 500`)
        .all<{ detail: string }>()
        .map((r) => r.detail)
        .join(' ');
      expect(plan).toMatch(/dispatches_enforcement_todo/);
    } finally {
      db.close();
    }
  });

  it('a fault in the pass is a diagnostic, never a throw', () => {
    const { env } = tempHome();
    spool(env, [dispatch('t1'), completion('t1', 'claude-opus-5-5')]);
    const db = openLedger(env);
    try {
      runObserver(env, testPricer(), db);
      const boom = () => {
        throw new Error('resolver fault');
      };
      expect(checkEnforcement(db, boom, env)).toEqual({ checked: 0, ignored: 0 });
      expect(readFileSync(paths(env).diagnostics, 'utf8')).toMatch(/observer:enforcement.*resolver fault/);
    } finally {
      db.close();
    }
  });
});
