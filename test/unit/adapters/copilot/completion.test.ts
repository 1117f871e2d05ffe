/**
 * A Copilot child's completion: the session file parsed forward (transcript.ts), the subagentStop hook spooling the
 * child as pending (Copilot CLI 1.0.102 writes `subagent.completed` after that hook, seen), and the drain's late flush
 * settling it from the file once the file is complete, joined to its dispatch by the call id.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { createCommandAdapter as createCopilotAdapter } from '../../../../src/adapters/copilot/command.js';
import { parseCopilotEvents } from '../../../../src/adapters/copilot/transcript.js';
import type { HookContext } from '../../../../src/contracts/hook.js';
import { loadPricer } from '../../../../src/observer/default-pricer.js';
import { runObserver } from '../../../../src/collect/drain.js';
import { openLedger } from '../../../../src/observer/ledger/open.js';
import { defaultScanRoots, scanTranscripts } from '../../../../src/collect/scan.js';
import { resetSpoolFile } from '../../../../src/observer/spool.js';
import { fixture, linesThrough, sandbox, SESSIONS, sessionLines, writeSession, type Sandbox } from './support.js';

const SID = '9c85d76b-014b-4635-b712-c426b73f1d59';
const CHILD = '016a0bac-513c-40fc-ab39-b9ccebb46d2f';

describe('copilot session file, read forward', () => {
  it('the basic run: parent and child requests, the dispatch joined to its child, the child complete with its outcome', () => {
    const p = parseCopilotEvents(join(SESSIONS, 'basic.session.jsonl'));
    expect(p).toMatchObject({
      harness: 'copilot',
      sessionId: SID,
      project: '<project>',
      child: null,
      truncated: false,
    });
    expect(
      p.requests.map((r) => [r.key, r.model, r.agentId, r.usage.input, r.usage.cacheRead, r.usage.output]),
    ).toEqual([
      ['chatcmpl_lab_0001', 'gpt-5.4', null, 500, 501, 21],
      ['chatcmpl_lab_0002', 'claude-opus-4.8', CHILD, 500, 502, 22],
      ['chatcmpl_lab_0003', 'gpt-5.4', null, 500, 503, 23],
    ]);
    expect(p.dispatches).toEqual([
      expect.objectContaining({
        callId: 'call_lab_1_0',
        parentModel: 'gpt-5.4',
        requestedModel: null,
        subagentType: 'pricey',
        childAgentId: CHILD,
      }),
    ]);
    expect(p.children).toEqual([
      expect.objectContaining({
        agentId: CHILD,
        callId: 'call_lab_1_0',
        subagentType: 'pricey',
        requestedModel: 'claude-opus-4.8',
        servedModel: 'claude-opus-4.8',
        usage: { input: 500, output: 22, cacheRead: 502, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 3, requests: 1 },
        outcome: { result: 'lab', verified: 'yes', escalationFrom: null },
        complete: true,
      }),
    ]);
    // BYOK: no multiplier reported (cost 0).
    expect(p.multipliers.size).toBe(0);
  });

  it('a child whose subagent.completed is not written yet is not complete', () => {
    const sb = sandbox();
    const path = writeSession(
      sb,
      SID,
      linesThrough(sessionLines(), 'assistant.turn_end').concat(
        sessionLines().filter((l) => l.includes('"agentStop"')),
      ),
    );
    expect(parseCopilotEvents(path).children[0]).toMatchObject({
      agentId: CHILD,
      complete: false,
      usage: { output: 22 },
    });
  });

  it('the served-model run: the requested id is all Copilot records', () => {
    const p = parseCopilotEvents(join(SESSIONS, 'served-model.session.jsonl'));
    expect(p.children[0]!.servedModel).toBe('claude-opus-4.8');
  });
});

describe('copilot subagentStop -> pending -> settled by the drain', () => {
  beforeEach(() => resetSpoolFile());
  const ctx = (sb: Sandbox, event: string): HookContext => ({
    env: sb.env,
    harness: 'copilot',
    event,
    startedAt: Date.now(),
    deadlineMs: 5000,
  });
  const services = { observe: () => undefined, push: () => undefined };

  function ledger(sb: Sandbox, sql: string): Record<string, unknown>[] {
    const file = join(sb.env.TIERGATE_HOME, 'data', 'ledger.sqlite');
    if (!existsSync(file)) return [];
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare(sql).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }

  it('spools the child pending at subagentStop; the drain settles it from the completed file and joins the dispatch', async () => {
    const sb = sandbox();
    const all = sessionLines();
    // What the file held at subagentStop (seen): everything up to the child's end, not its subagent.completed.
    const atStop = all.slice(
      0,
      all.findIndex((l) => l.includes('"subagent.completed"')),
    );
    const path = writeSession(sb, SID, atStop);
    const adapter = createCopilotAdapter(services);
    const stop = { ...fixture('subagentStop.basic.json').payload, transcriptPath: path, cwd: sb.project };
    expect(await adapter.handlers.subagentStop!(stop, ctx(sb, 'subagentStop'))).toBeNull();

    const pricer = loadPricer(sb.env, sb.project);
    runObserver(sb.env, pricer);
    expect(ledger(sb, 'SELECT status, call_id, agent_id, result FROM completions')).toEqual([
      { status: 'pending', call_id: 'call_lab_1_0', agent_id: CHILD, result: 'lab' },
    ]);

    // The session ended and Copilot flushed the rest: the next drain (sessionEnd's, or any tiergate command's) settles it.
    writeFileSync(path, all.map((l) => `${l}\n`).join(''));
    runObserver(sb.env, pricer);
    const [row] = ledger(
      sb,
      'SELECT status, served_model, input, output, cache_read, requests, call_id, cost_pico, usage_source FROM completions',
    );
    expect(row).toMatchObject({
      status: 'ok',
      served_model: 'claude-opus-4.8',
      input: 500,
      output: 22,
      cache_read: 502,
      requests: 1,
      call_id: 'call_lab_1_0',
      usage_source: 'transcript-late',
    });
    expect(Number(row!.cost_pico)).toBeGreaterThan(0);
  });

  it('without a readable session file: still recorded (pending, no usage), never thrown', async () => {
    const sb = sandbox();
    const adapter = createCopilotAdapter(services);
    const stop = {
      ...fixture('subagentStop.basic.json').payload,
      transcriptPath: join(sb.root, 'gone.jsonl'),
      cwd: sb.project,
    };
    expect(await adapter.handlers.subagentStop!(stop, ctx(sb, 'subagentStop'))).toBeNull();
    runObserver(sb.env, loadPricer(sb.env, sb.project));
    expect(ledger(sb, 'SELECT status, input FROM completions')).toEqual([{ status: 'pending', input: null }]);
  });

  it('sessionEnd runs the observer pass, then the push', async () => {
    const sb = sandbox();
    const calls: string[] = [];
    const adapter = createCopilotAdapter({
      observe: (_e, cwd) => void calls.push(`observe ${cwd}`),
      push: () => void calls.push('push'),
    });
    await adapter.handlers.sessionEnd!(
      { ...fixture('sessionEnd.basic.json').payload, cwd: sb.project },
      ctx(sb, 'sessionEnd'),
    );
    expect(calls).toEqual([`observe ${sb.project}`, 'push']);
  });
});

describe('tiergate scan: Copilot session files', () => {
  it('finds $COPILOT_HOME/session-state/*/events.jsonl; stores every request, the dispatch and the child, once', () => {
    const sb = sandbox();
    writeSession(sb, SID, sessionLines());
    const roots = defaultScanRoots(sb.env).filter((r) => r.harness === 'copilot');
    expect(roots).toEqual([{ harness: 'copilot', dir: join(sb.copilotHome, 'session-state') }]);
    const db = openLedger(sb.env);
    try {
      const pricer = loadPricer(sb.env, null);
      const first = scanTranscripts(db, roots, pricer, {}, sb.env);
      expect(first).toMatchObject({ files: 1, parsed: 1, requestsNew: 3, dispatches: 1, completions: 1 });
      expect(
        db.prepare('SELECT agent_id, call_id, served_model, input, output, cache_read, status FROM completions').all(),
      ).toEqual([
        {
          agent_id: CHILD,
          call_id: 'call_lab_1_0',
          served_model: 'claude-opus-4.8',
          input: 500,
          output: 22,
          cache_read: 502,
          status: 'ok',
        },
      ]);
      expect(
        db.prepare('SELECT COUNT(*) AS n FROM requests WHERE harness = ? AND cost_pico IS NOT NULL').get('copilot'),
      ).toEqual({ n: 3 });
      // A full rescan finds the same ids: nothing new, nothing twice.
      expect(scanTranscripts(db, roots, pricer, { full: true }, sb.env)).toMatchObject({ requestsNew: 0 });
      expect(
        db
          .prepare(
            'SELECT (SELECT COUNT(*) FROM completions) AS c, (SELECT COUNT(*) FROM requests) AS r, (SELECT COUNT(*) FROM dispatches) AS d',
          )
          .get(),
      ).toEqual({ c: 1, r: 3, d: 1 });
    } finally {
      db.close();
    }
  });
});
