import { appendFileSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaudeTranscript } from '../../../src/adapters/claude/transcript.js';
import { parseCodexRollout } from '../../../src/adapters/codex/transcript.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { scanTranscripts, type ScanRoot } from '../../../src/collect/scan.js';
import {
  CLAUDE_AGENT,
  CLAUDE_SESSION,
  claudeConfigDir,
  codexHome,
  tempHome,
  testCost,
  testPricer,
  writeLines,
} from '../observer/helpers.js';

function setup() {
  const { dir, env } = tempHome();
  const c = claudeConfigDir(dir);
  const x = codexHome(dir);
  const roots: ScanRoot[] = [
    { harness: 'claude', dir: join(c.configDir, 'projects') },
    { harness: 'codex', dir: join(x.codexHome, 'sessions') },
  ];
  return { dir, env, c, x, roots };
}

const counts = (db: ReturnType<typeof openLedger>) => ({
  requests: db.prepare('SELECT COUNT(*) AS n FROM requests').get<{ n: number }>()!.n,
  dispatches: db.prepare('SELECT COUNT(*) AS n FROM dispatches').get<{ n: number }>()!.n,
  completions: db.prepare('SELECT COUNT(*) AS n FROM completions').get<{ n: number }>()!.n,
  pico: db.prepare('SELECT CAST(SUM(cost_pico) AS TEXT) AS p FROM requests').get<{ p: string }>()!.p,
});

describe('scan (backfill from transcripts)', () => {
  it('backfills Claude parent + sidechain and Codex parent + child, joined by exact ids', () => {
    const { env, roots } = setup();
    const db = openLedger(env);
    try {
      const s = scanTranscripts(db, roots, testPricer(), {}, env);
      expect(s).toMatchObject({
        files: 4,
        parsed: 4,
        failed: 0,
        requestsNew: 2 + 1 + 3 + 1,
        dispatches: 2,
        completions: 2,
      });

      const claude = db.prepare(`SELECT * FROM completions WHERE harness = 'claude'`).get<Record<string, unknown>>()!;
      expect(claude).toMatchObject({
        agent_id: CLAUDE_AGENT,
        call_id: 'toolu_demo_1_0',
        session_id: CLAUDE_SESSION,
        served_model: 'claude-opus-5-5',
        parent_model: 'claude-opus-5-5',
        requested_model: 'opus',
        subagent_type: 'general-purpose',
        status: 'ok',
        input: 1002,
        output: 22,
        cache_read: 502,
        cache_write_5m: 302,
        cache_write_1h: 0,
        result: 'demo',
        verified: 'yes',
      });
      const u = {
        input: 1002,
        output: 22,
        cacheRead: 502,
        cacheWrite5m: 302,
        cacheWrite1h: 0,
        reasoning: 0,
        requests: 1,
      };
      expect(BigInt(claude.cost_pico as number)).toBe(testCost('claude-opus-5-5', u));
      expect(claude.cost_catalog_version).toBe('test-catalog-1');

      const codex = db.prepare(`SELECT * FROM completions WHERE harness = 'codex'`).get<Record<string, unknown>>()!;
      // Codex input_tokens 1003 includes 503 cached (seen on 0.169.0): 500 uncached.
      expect(codex).toMatchObject({
        call_id: 'call_demo_1_0',
        served_model: 'gpt-6-luna',
        parent_model: 'gpt-6-astra',
        requested_model: 'gpt-6-luna',
        input: 500,
        cache_read: 503,
        output: 23,
        reasoning: 3,
        result: 'demo',
        verified: 'yes',
        status: 'ok',
      });
      // Counterfactual: the same usage on the parent's model.
      const cu = {
        input: 500,
        output: 23,
        cacheRead: 503,
        cacheWrite5m: 0,
        cacheWrite1h: 0,
        reasoning: 3,
        requests: 1,
      };
      expect(BigInt(codex.counterfactual_pico as number)).toBe(testCost('gpt-6-astra', cu));
      expect(BigInt(codex.cost_pico as number)).toBe(testCost('gpt-6-luna', cu));
    } finally {
      db.close();
    }
  });

  it('is idempotent: a second scan skips unchanged files, --full re-reads and still adds nothing', () => {
    const { env, roots } = setup();
    const db = openLedger(env);
    try {
      scanTranscripts(db, roots, testPricer(), {}, env);
      const before = counts(db);
      const again = scanTranscripts(db, roots, testPricer(), {}, env);
      expect(again).toMatchObject({ unchanged: 4, parsed: 0, requestsNew: 0, completions: 0, dispatches: 0 });
      const full = scanTranscripts(db, roots, testPricer(), { full: true }, env);
      expect(full).toMatchObject({ parsed: 4, requestsSeen: 7, requestsNew: 0, dispatches: 0 });
      expect(counts(db)).toEqual(before);
      expect(full.totals.requests).toBe(7);
      expect(full.totals.pricedPico).toBe(BigInt(before.pico));
    } finally {
      db.close();
    }
  });

  it('--since skips old files by mtime without opening them', () => {
    const { env, roots, c } = setup();
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(c.parent, old, old);
    const db = openLedger(env);
    try {
      const s = scanTranscripts(db, roots, testPricer(), { since: Date.parse('2026-01-01T00:00:00Z') }, env);
      expect(s.skippedBySince).toBe(1);
      expect(s.parsed).toBe(3);
      expect(db.prepare(`SELECT COUNT(*) AS n FROM dispatches WHERE harness = 'claude'`).get<{ n: number }>()!.n).toBe(
        0,
      );
    } finally {
      db.close();
    }
  });

  it('a grown transcript is re-read and only its new request lands', () => {
    const { env, roots, c } = setup();
    const db = openLedger(env);
    try {
      scanTranscripts(db, roots, testPricer(), {}, env);
      const line = JSON.parse(
        readFileSync(c.parent, 'utf8')
          .split('\n')
          .filter((l) => l.includes('"type":"assistant"'))[0]!,
      );
      line.message.id = 'msg_new';
      line.requestId = 'req_new';
      appendFileSync(c.parent, `${JSON.stringify(line)}\n`);
      const s = scanTranscripts(db, roots, testPricer(), {}, env);
      expect(s).toMatchObject({ parsed: 1, unchanged: 3, requestsSeen: 3, requestsNew: 1 });
    } finally {
      db.close();
    }
  });

  it('unknown models stay unpriced (NULL), never $0, and are named in the summary', () => {
    const { env, roots } = setup();
    const db = openLedger(env);
    try {
      const pricer = { catalogVersion: 'empty', price: () => null };
      const s = scanTranscripts(db, roots, pricer, {}, env);
      expect(s.totals.pricedPico).toBe(0n);
      expect(s.totals.unpricedRequests).toBe(7);
      expect(s.totals.unpricedModels).toEqual(['claude-opus-5-5', 'gpt-6-astra', 'gpt-6-luna']);
      expect(db.prepare('SELECT COUNT(*) AS n FROM completions WHERE cost_pico IS NULL').get<{ n: number }>()!.n).toBe(
        2,
      );
      expect(db.prepare('SELECT COUNT(*) AS n FROM completions WHERE cost_pico = 0').get<{ n: number }>()!.n).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe('transcript parsers', () => {
  it('Claude: records of one response (same message.id + requestId) count once, largest value per field', () => {
    const p = join(tempHome().dir, 's.jsonl');
    const rec = (output: number, stop: string | null) => ({
      type: 'assistant',
      sessionId: 's1',
      requestId: 'req_1',
      isSidechain: false,
      timestamp: '2026-12-02T10:00:00Z',
      message: {
        id: 'msg_1',
        model: 'claude-sonnet-5-5',
        stop_reason: stop,
        content: [{ type: 'text', text: 'x' }],
        usage: {
          input_tokens: 10,
          output_tokens: output,
          cache_read_input_tokens: 5,
          cache_creation_input_tokens: 7,
          cache_creation: { ephemeral_1h_input_tokens: 3, ephemeral_5m_input_tokens: 4 },
        },
      },
    });
    writeLines(p, [
      rec(1, null),
      rec(250, 'end_turn'),
      rec(40, null),
      {
        type: 'assistant',
        requestId: 'r2',
        message: { id: 'm2', model: '<synthetic>', usage: { input_tokens: 0, output_tokens: 0 } },
      },
      '{"type":"assistant", broken',
    ]);
    const r = parseClaudeTranscript(p);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.usage).toEqual({
      input: 10,
      output: 250,
      cacheRead: 5,
      cacheWrite5m: 4,
      cacheWrite1h: 3,
      reasoning: 0,
      requests: 1,
    });
  });

  it('Claude: the served model is message.model, not requestedModel (served-model fixture)', () => {
    const { dir } = tempHome();
    const c = claudeConfigDir(dir);
    writeFileSync(
      c.child,
      readFileSync(
        join(import.meta.dirname, '../../fixtures/claude/transcripts/served-model.child.at-SubagentStop.jsonl'),
      ),
    );
    const r = parseClaudeTranscript(c.child);
    expect(r.child).toMatchObject({
      servedModel: 'claude-demo-served-model',
      callId: 'toolu_demo_1_0',
      requestedModel: 'opus',
    });
  });

  it('Codex: a child read at SubagentStop (no task_complete yet) is complete by its usage lines', () => {
    const { dir } = tempHome();
    const x = codexHome(dir, 'child-cheaper.child.at-SubagentStop.jsonl');
    const r = parseCodexRollout(x.child);
    expect(r.child).toMatchObject({
      complete: true,
      servedModel: 'gpt-6-luna',
      agentId: '01a23714-8430-7c42-9d50-a62c42ad09ab',
    });
    const parent = parseCodexRollout(x.parent);
    expect(parent.dispatches).toEqual([
      expect.objectContaining({
        callId: 'call_demo_1_0',
        requestedModel: 'gpt-6-luna',
        parentModel: 'gpt-6-astra',
        childAgentId: '01a23714-8430-7c42-9d50-a62c42ad09ab',
      }),
    ]);
    expect(parent.child).toBeNull();
  });

  it('Codex: rollouts without token_usage_record fall back to differences of token_count totals', () => {
    const p = join(tempHome().dir, 'old.jsonl');
    const tc = (input: number, cached: number, output: number) => ({
      type: 'event_msg',
      timestamp: '2026-01-01T00:00:00Z',
      payload: {
        type: 'token_count',
        info: {
          total_token_usage: {
            input_tokens: input,
            cached_input_tokens: cached,
            output_tokens: output,
            total_tokens: input + output,
          },
        },
      },
    });
    writeLines(p, [
      { type: 'session_meta', payload: { id: 't1', cwd: '/w' } },
      { type: 'turn_context', payload: { model: 'gpt-6-astra' } },
      tc(100, 40, 10),
      tc(100, 40, 10),
      tc(250, 90, 30),
    ]);
    const r = parseCodexRollout(p);
    expect(r.requests.map((q) => q.usage)).toEqual([
      { input: 60, output: 10, cacheRead: 40, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
      { input: 100, output: 20, cacheRead: 50, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
    ]);
  });
});
