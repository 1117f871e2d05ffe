/**
 * Copilot CLI's premium-request multipliers: read from the session file, learned into the data-dir table, compared at
 * dispatch, stored per completion.
 *
 * CONSTRUCTED INPUT: Copilot CLI 1.0.102 offline (BYOK, the only mode runnable here) reports `cost: 0` and
 * `isByok: true` on every usage record (recorded basic.session.jsonl), so no run here ever showed a multiplier. The
 * GitHub-hosted session files below are the recorded one with its usage records edited to what the SDK types describe
 * for GitHub-hosted models (`isByok: false`, `cost` = the model's multiplier); nothing else changed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createCommandAdapter } from '../../../../src/adapters/copilot/command.js';
import { preToolUse } from '../../../../src/adapters/copilot/dispatch-command.js';
import { multiplierOf } from '../../../../src/adapters/copilot/events.js';
import {
  decimalOf,
  dispatchPricing,
  learnMultipliers,
  MULTIPLIER_MAX_AGE_MS,
  multiplierPricing,
  multiplierTablePath,
  readMultipliers,
  recordMultipliers,
} from '../../../../src/adapters/copilot/multipliers.js';
import { parseCopilotEvents } from '../../../../src/adapters/copilot/transcript.js';
import type { HookContext, HookServices } from '../../../../src/contracts/hook.js';
import type { SpoolRecord } from '../../../../src/contracts/spool.js';
import type { Report } from '../../../../src/contracts/report.js';
import { openLedger } from '../../../../src/observer/ledger/open.js';
import { formatJson } from '../../../../src/report/format-json.js';
import { formatTable } from '../../../../src/report/format-table.js';
import { buildReport } from '../../../../src/report/query.js';
import { reconcilePending, runObserver } from '../../../../src/collect/drain.js';
import { loadPricer } from '../../../../src/observer/default-pricer.js';
import { defaultScanRoots, scanTranscripts } from '../../../../src/collect/scan.js';
import { resetSpoolFile } from '../../../../src/observer/spool.js';
import { linesThrough, sandbox, sessionLines, writeAgent, writeSession, type Sandbox } from './support.js';

const SID = '9c85d76b-014b-4635-b712-c426b73f1d59';
const CHILD = '016a0bac-513c-40fc-ab39-b9ccebb46d2f';

/** The recorded session file with its usage records made GitHub-hosted: `cost` per model (see the header). */
function githubHosted(lines: string[], costs: Record<string, number>): string[] {
  return lines.map((l) => {
    const o = JSON.parse(l) as { type: string; data: { usage?: Record<string, unknown> } };
    if (o.type !== 'session.usage_record' || !o.data.usage) return l;
    const u = o.data.usage;
    delete u.byokKind;
    o.data.usage = { ...u, isByok: false, cost: costs[u.model as string] ?? 0 };
    return JSON.stringify(o);
  });
}

const ctx = (sb: Sandbox): HookContext => ({
  env: sb.env,
  harness: 'copilot',
  event: 'preToolUse',
  startedAt: Date.now(),
  deadlineMs: 5000,
});

function spool(sb: Sandbox): SpoolRecord[] {
  const dir = join(sb.env.TIERGATE_HOME, 'data', 'spool');
  try {
    return readdirSync(dir).flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as SpoolRecord),
    );
  } catch {
    return [];
  }
}

describe('multiplierOf', () => {
  it('a GitHub-hosted request: its cost; BYOK, 0, junk: none', () => {
    expect(multiplierOf({ cost: 3, isByok: false })).toBe(3);
    expect(multiplierOf({ cost: 0.33 })).toBe(0.33);
    expect(multiplierOf({ cost: 3, isByok: true })).toBeNull();
    expect(multiplierOf({ cost: 0, isByok: false })).toBeNull();
    expect(multiplierOf({ cost: '3', isByok: false })).toBeNull();
    expect(multiplierOf({ cost: Number.NaN, isByok: false })).toBeNull();
  });

  it('the recorded BYOK session file (1.0.102 offline) reports none', () => {
    const sb = sandbox();
    const parse = parseCopilotEvents(writeSession(sb, SID, sessionLines()));
    expect(parse.multipliers.size).toBe(0);
    expect(parse.children[0]?.multiplier).toBeNull();
  });
});

describe('learning the table from a session file (constructed GitHub-hosted records)', () => {
  it('each model at the multiplier its requests reported; the child summary carries its own', () => {
    const sb = sandbox();
    const parse = parseCopilotEvents(
      writeSession(sb, SID, githubHosted(sessionLines(), { 'gpt-5.4': 1, 'claude-opus-4.8': 3 })),
    );
    expect(parse.children[0]).toMatchObject({ agentId: CHILD, multiplier: 3 });
    const learned = learnMultipliers(parse.requests, parse.multipliers, 0);
    expect(Object.fromEntries([...learned].map(([m, e]) => [m, e.multiplier]))).toEqual({
      'gpt-5.4': 1,
      'claude-opus-4.8': 3,
    });
  });

  it('written through the data dir, newest sighting wins, stale entries are not used at dispatch', () => {
    const sb = sandbox();
    const now = Date.UTC(2026, 11, 4);
    expect(recordMultipliers(sb.env, new Map([['claude-opus-4.8', { multiplier: 3, at: now - 1000 }]]))).toBe(true);
    // An older sighting does not replace a newer one; the same one writes nothing.
    expect(recordMultipliers(sb.env, new Map([['claude-opus-4.8', { multiplier: 1, at: now - 5000 }]]))).toBe(false);
    expect(recordMultipliers(sb.env, new Map([['claude-opus-4.8', { multiplier: 3, at: now - 1000 }]]))).toBe(false);
    recordMultipliers(sb.env, new Map([['gpt-old', { multiplier: 2, at: now - MULTIPLIER_MAX_AGE_MS - 1 }]]));
    expect([...readMultipliers(sb.env, now)]).toEqual([['claude-opus-4.8', 3]]);
    expect(JSON.parse(readFileSync(multiplierTablePath(sb.env), 'utf8'))).toMatchObject({
      format: 'tiergate-copilot-multipliers/1',
    });
  });

  it('a table that is a link, or not ours, reads as empty (per-token prices) with a diagnostic', () => {
    const sb = sandbox();
    const path = multiplierTablePath(sb.env);
    mkdirSync(join(sb.env.TIERGATE_HOME, 'data'), { recursive: true });
    const elsewhere = join(sb.root, 'elsewhere.json');
    writeFileSync(
      elsewhere,
      JSON.stringify({ format: 'tiergate-copilot-multipliers/1', models: { x: { multiplier: 1, at: 1 } } }),
    );
    symlinkSync(elsewhere, path);
    expect(readMultipliers(sb.env, 2).size).toBe(0);
    const log = readFileSync(join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8');
    expect(log).toContain('copilot:multipliers');
  });

  it('subagentStop learns from the file it reads; a BYOK file writes no table', async () => {
    resetSpoolFile();
    const services = { observe: async () => {}, push: async () => {} } as unknown as HookServices;
    const stop = createCommandAdapter(services).handlers.subagentStop!;
    const payload = (sb: Sandbox, path: string) => ({
      sessionId: SID,
      cwd: sb.project,
      agentId: CHILD,
      agentType: 'pricey',
      transcriptPath: path,
      response: 'Result: done',
    });
    const byok = sandbox();
    await stop(payload(byok, writeSession(byok, SID, sessionLines())), ctx(byok));
    expect(readMultipliers(byok.env, Date.now()).size).toBe(0);

    const hosted = sandbox();
    const path = writeSession(hosted, SID, githubHosted(sessionLines(), { 'gpt-5.4': 1, 'claude-opus-4.8': 3 }));
    await stop(payload(hosted, path), ctx(hosted));
    // The recorded lines are from 2026-12-03: within the table's age at the test's own clock only if recent, so read
    // the entries as written.
    const table = JSON.parse(readFileSync(multiplierTablePath(hosted.env), 'utf8')) as {
      models: Record<string, { multiplier: number }>;
    };
    expect(table.models['claude-opus-4.8']?.multiplier).toBe(3);
    expect(table.models['gpt-5.4']?.multiplier).toBe(1);
  });
});

describe('the ledger stores the multiplier per completion (migration 9)', () => {
  it('a child complete at subagentStop: the spool line carries it into the ledger', async () => {
    resetSpoolFile();
    const sb = sandbox();
    const path = writeSession(sb, SID, githubHosted(sessionLines(), { 'gpt-5.4': 1, 'claude-opus-4.8': 3 }));
    const services = { observe: async () => {}, push: async () => {} } as unknown as HookServices;
    const stop = createCommandAdapter(services).handlers.subagentStop!;
    await stop({ sessionId: SID, cwd: sb.project, agentId: CHILD, agentType: 'pricey', transcriptPath: path }, ctx(sb));
    const line = spool(sb).find((r) => r.type === 'completion');
    expect(line).toMatchObject({ observation: { status: 'ok', multiplier: 3 } });
    runObserver(sb.env, loadPricer(sb.env, null));
    const db = openLedger(sb.env);
    try {
      expect(db.prepare('SELECT status, multiplier FROM completions').all()).toEqual([{ status: 'ok', multiplier: 3 }]);
    } finally {
      db.close();
    }
  });

  it('tiergate scan teaches the table too, each model dated by its request; a BYOK file writes none', () => {
    for (const [costs, want] of [
      [null, null],
      [
        { 'gpt-5.4': 1, 'claude-opus-4.8': 3 },
        { 'gpt-5.4': 1, 'claude-opus-4.8': 3 },
      ],
    ] as const) {
      const s = sandbox();
      writeSession(s, SID, costs ? githubHosted(sessionLines(), costs) : sessionLines());
      const db = openLedger(s.env);
      try {
        const roots = defaultScanRoots(s.env).filter((r) => r.harness === 'copilot');
        scanTranscripts(db, roots, loadPricer(s.env, null), {}, s.env);
      } finally {
        db.close();
      }
      if (want === null) {
        expect(existsSync(multiplierTablePath(s.env))).toBe(false);
        continue;
      }
      const table = JSON.parse(readFileSync(multiplierTablePath(s.env), 'utf8')) as {
        models: Record<string, { multiplier: number; at: number }>;
      };
      expect(Object.fromEntries(Object.entries(table.models).map(([m, e]) => [m, e.multiplier]))).toEqual(want);
      // The recorded file's own times, not the scan's: an old file never outdates a newer sighting.
      const times = sessionLines()
        .map((l) => Date.parse((JSON.parse(l) as { timestamp?: string }).timestamp ?? ''))
        .filter(Number.isFinite);
      for (const e of Object.values(table.models)) expect(e.at).toBeLessThanOrEqual(Math.max(...times));
    }
  });

  it('scan and the late flush both carry it; a BYOK child has none', () => {
    const sb = sandbox();
    const path = writeSession(sb, SID, githubHosted(sessionLines(), { 'gpt-5.4': 1, 'claude-opus-4.8': 3 }));
    const db = openLedger(sb.env);
    try {
      const cols = db.prepare('PRAGMA table_info(completions)').all<{ name: string }>();
      expect(cols.map((c) => c.name)).toContain('multiplier');
      // A pending row as subagentStop leaves it (the file lacked subagent.completed), settled from the whole file.
      db.prepare(
        `INSERT INTO completions (dedupe_key, harness, session_id, agent_id, status, ended_at, day, usage_source, transcript_path)
         VALUES (?, 'copilot', ?, ?, 'pending', ?, '2026-12-03', 'none', ?)`,
      ).run(`copilot:agent:${CHILD}`, SID, CHILD, Date.now(), path);
      expect(reconcilePending(db)).toBe(1);
      expect(db.prepare('SELECT multiplier FROM completions').all()).toEqual([{ multiplier: 3 }]);
    } finally {
      db.close();
    }
    const byok = sandbox();
    writeSession(byok, SID, sessionLines());
    const hosted = sandbox();
    writeSession(hosted, SID, githubHosted(sessionLines(), { 'gpt-5.4': 1, 'claude-opus-4.8': 3 }));
    for (const [s, want] of [
      [byok, null],
      [hosted, 3],
    ] as const) {
      const db2 = openLedger(s.env);
      try {
        const roots = defaultScanRoots(s.env).filter((r) => r.harness === 'copilot');
        scanTranscripts(db2, roots, loadPricer(s.env, null), {}, s.env);
        expect(db2.prepare('SELECT multiplier FROM completions').all()).toEqual([{ multiplier: want }]);
        // report --json: the row and the total say how many runs were billed by multiplier, and at what.
        const report = JSON.parse(formatJson(buildReport(db2, { by: 'agent' }))) as Report;
        const m = want === null ? undefined : { runs: 1, min: want, max: want };
        expect(report.rows[0]?.multiplier).toEqual(m);
        expect(report.totals.multiplier).toEqual(m);
        const table = formatTable(buildReport(db2, { by: 'agent' }), { width: 120, color: false });
        expect(
          table.includes('premium requests: 1 GitHub Copilot CLI run was billed by GitHub at a 3x multiplier'),
        ).toBe(want !== null);
      } finally {
        db2.close();
      }
    }
  });
});

describe('dispatch compared by multiplier when both sides have one', () => {
  beforeEach(() => resetSpoolFile());

  const args = (extra: Record<string, unknown> = {}) => ({
    name: 'lab-child',
    description: 'lab child task',
    prompt: 'LAB-CHILD: go',
    agent_type: 'pricey',
    mode: 'sync',
    ...extra,
  });

  /** The session file at preToolUse, GitHub-hosted: the parent's turn on `parent` at `parentCost`. */
  function session(sb: Sandbox, a: Record<string, unknown>, parent: string, parentCost: number): void {
    const lines = linesThrough(sessionLines(), 'tool.execution_start').map((l) => {
      const o = JSON.parse(l) as { type: string; data: Record<string, unknown> };
      if (o.type === 'tool.execution_start') o.data = { ...o.data, arguments: a, model: parent };
      if (o.type === 'session.usage_record') {
        const u = o.data.usage as Record<string, unknown>;
        o.data.usage = { ...u, model: parent, isByok: false, cost: parentCost };
      }
      return JSON.stringify(o);
    });
    writeSession(sb, SID, lines);
  }

  const table = (sb: Sandbox, models: Record<string, number>) =>
    recordMultipliers(sb.env, new Map(Object.entries(models).map(([m, x]) => [m, { multiplier: x, at: Date.now() }])));

  const decided = (sb: Sandbox) =>
    spool(sb).find((r) => r.type === 'dispatch') as Extract<SpoolRecord, { type: 'dispatch' }>;

  it('a child pricier per token but on the same multiplier as the parent: allowed (per token it is corrected)', async () => {
    const sb = sandbox();
    writeAgent(join(sb.copilotHome, 'agents'), 'pricey.agent.md', {
      name: 'pricey',
      description: 'd',
      model: 'claude-opus-4.8',
    });
    const a = args();
    session(sb, a, 'gpt-5.4', 1);
    table(sb, { 'claude-opus-4.8': 1 });
    expect(await preToolUse({ sessionId: SID, toolName: 'task', toolArgs: a, cwd: sb.project }, ctx(sb))).toBeNull();
    expect(decided(sb).decision).toMatchObject({ action: 'allow', reason: 'within-ceiling' });

    // The same dispatch with no multiplier known for the child: per token, corrected as before.
    const sb2 = sandbox();
    writeAgent(join(sb2.copilotHome, 'agents'), 'pricey.agent.md', {
      name: 'pricey',
      description: 'd',
      model: 'claude-opus-4.8',
    });
    session(sb2, a, 'gpt-5.4', 1);
    const r = await preToolUse({ sessionId: SID, toolName: 'task', toolArgs: a, cwd: sb2.project }, ctx(sb2));
    expect(JSON.parse(r!.stdout!)).toEqual({ modifiedArgs: { ...a, model: 'gpt-5.4' } });
  });

  it('a child cheaper per token on a higher multiplier: corrected to the parent model', async () => {
    const sb = sandbox();
    const a = args({ agent_type: 'general-purpose', model: 'gpt-5.4-mini' });
    session(sb, a, 'gpt-5.4', 1);
    table(sb, { 'gpt-5.4-mini': 3 });
    const r = await preToolUse({ sessionId: SID, toolName: 'task', toolArgs: a, cwd: sb.project }, ctx(sb));
    expect(JSON.parse(r!.stdout!)).toEqual({ modifiedArgs: { ...a, model: 'gpt-5.4' } });
    expect(decided(sb).decision).toMatchObject({ action: 'correct', reason: 'over-ceiling-corrected' });
  });

  it('the default tier moves an inherited child only to a model with a known multiplier no higher', async () => {
    const sb = sandbox();
    writeAgent(join(sb.copilotHome, 'agents'), 'plain.agent.md', { name: 'plain', description: 'd' });
    const a = args({ agent_type: 'plain' });
    session(sb, a, 'claude-opus-4.8', 3);
    // standard (gpt-5.4) has no known multiplier: skipped; cheap (gpt-5.4-mini) is known and lower.
    table(sb, { 'gpt-5.4-mini': 0.33 });
    const r = await preToolUse({ sessionId: SID, toolName: 'task', toolArgs: a, cwd: sb.project }, ctx(sb));
    expect(JSON.parse(r!.stdout!)).toEqual({ modifiedArgs: { ...a, model: 'gpt-5.4-mini' } });
    expect(decided(sb).decision).toMatchObject({ reason: 'default-tier-applied', tier: 'cheap' });
  });

  it('denied when no tier has a known multiplier within the ceiling: the reason names multipliers, not $/M', async () => {
    const sb = sandbox();
    mkdirSync(join(sb.env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(
      join(sb.env.TIERGATE_HOME, 'config', 'config.json'),
      JSON.stringify({
        tiers: { copilot: { parent: 'm-parent', premium: 'm-premium', standard: 'm-std', cheap: 'm-cheap' } },
      }),
    );
    const a = args({ agent_type: 'general-purpose', model: 'gpt-5.4-mini' });
    session(sb, a, 'gpt-5.4', 1);
    table(sb, { 'gpt-5.4-mini': 3 });
    const r = await preToolUse({ sessionId: SID, toolName: 'task', toolArgs: a, cwd: sb.project }, ctx(sb));
    const answer = JSON.parse(r!.stdout!) as { permissionDecision: string; permissionDecisionReason: string };
    expect(answer.permissionDecision).toBe('deny');
    expect(answer.permissionDecisionReason).toContain('(premium-request multiplier 3x vs 1x)');
    expect(answer.permissionDecisionReason).not.toContain('/M');
  });

  it('BYOK: the table is not read, prices per token', () => {
    const sb = sandbox();
    mkdirSync(join(sb.env.TIERGATE_HOME, 'data'), { recursive: true });
    // A FIFO-like trap would hang a reader: a directory in its place would at least be refused. Not read at all here.
    mkdirSync(multiplierTablePath(sb.env));
    const child = { requestedModel: 'x', agentModel: null, unknown: null };
    expect(dispatchPricing({ parentModel: 'p', byok: true, parentMultiplier: 1 }, child, sb.env, 0)).toBeUndefined();
    expect(dispatchPricing({ parentModel: 'p', byok: null, parentMultiplier: null }, child, sb.env, 0)).toBeUndefined();
    expect(() => readFileSync(join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log'))).toThrow();
  });
});

describe('multiplierPricing', () => {
  const base = { catalogDate: 'd', catalogVersion: 'v', resolve: () => ({}) as never };

  it('null unless the parent and the child both have a multiplier', () => {
    const table = new Map([['c', 3]]);
    expect(multiplierPricing({ parentModel: 'p', parentMultiplier: null, childModel: 'c', table })).toBeNull();
    expect(multiplierPricing({ parentModel: 'p', parentMultiplier: 1, childModel: 'x', table })).toBeNull();
    expect(multiplierPricing({ parentModel: 'p', parentMultiplier: 1, childModel: null, table })).toBeNull();
    const lookup = multiplierPricing({ parentModel: 'p', parentMultiplier: 1, childModel: 'c', table })!(base);
    expect(lookup.resolve('c', 'copilot').price?.rates.output).toBe('3');
    expect(lookup.resolve('p', 'copilot').price?.rates.input).toBe('1');
    expect(lookup.resolve('unknown', 'copilot')).toMatchObject({ price: null, how: 'unknown' });
  });

  it('decimals without exponents', () => {
    expect(decimalOf(0.33)).toBe('0.33');
    expect(decimalOf(1)).toBe('1');
    expect(decimalOf(1e-7)).toBe('0');
    expect(decimalOf(12.5)).toBe('12.5');
  });
});

describe('doctor: the learned multipliers', () => {
  it('none learned: info; learned: ok, naming each model, stale ones said so', async () => {
    const { checkCopilotMultipliers } = await import('../../../../src/adapters/copilot/doctor.js');
    const sb = sandbox();
    const ictx = { env: sb.env, pkgRoot: sb.root, version: '0', home: sb.home };
    expect(checkCopilotMultipliers(ictx)).toMatchObject({ status: 'info', detail: expect.stringContaining('none') });
    const now = Date.UTC(2026, 11, 4);
    recordMultipliers(
      sb.env,
      new Map([
        ['claude-opus-4.8', { multiplier: 3, at: now }],
        ['gpt-old', { multiplier: 0.33, at: now - MULTIPLIER_MAX_AGE_MS - 1 }],
      ]),
    );
    const c = checkCopilotMultipliers(ictx, now);
    expect(c.status).toBe('ok');
    expect(c.detail).toContain('claude-opus-4.8 3x');
    expect(c.detail).toContain('gpt-old 0.33x');
    expect(c.detail).toContain('1 older than 30 days');
  });
});
