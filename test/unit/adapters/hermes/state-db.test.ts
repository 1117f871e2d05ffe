/**
 * Hermes Agent's state.db (hermes-agent 0.19.0 DDL, test/fixtures/hermes/state-db-0.19.0.sql) read by `tiergate scan`:
 * delegated children only, bounded, never through a link, never a prompt column, failing open on a locked or damaged
 * file, and landing on the same ledger row as the plugin's spool line for the same child.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hermes } from '../../../../src/adapters/hermes/index.js';
import { readStateDb, STATE_DB_MAX_ROWS, stateDbPath } from '../../../../src/adapters/hermes/state-db.js';
import { runObserver } from '../../../../src/collect/drain.js';
import { defaultStoreFiles, scanTranscripts } from '../../../../src/collect/scan.js';
import { paths } from '../../../../src/io/paths.js';
import { RefusedFile } from '../../../../src/io/read-capped.js';
import { openLedger } from '../../../../src/observer/ledger/open.js';
import { recordCompletion, type CompletionRow } from '../../../../src/observer/ledger/store.js';
import { FIXTURES, tempHome, testCost, testPricer } from '../../observer/helpers.js';

const DDL = readFileSync(join(FIXTURES, 'hermes/state-db-0.19.0.sql'), 'utf8');
/** In every prompt-bearing column and message: it must never reach the ledger or the diagnostics log. */
const SENTINEL = 'PROMPT-SENTINEL-7f3a';
const PARENT = '20261206_030532_afc57d';
const CHILD = '20261206_030546_8f4b15';
// An hour ago, not a fixed date: the observer settles a pending child from state.db only within a day of its start
// (drain.ts STORE_SETTLE_MS), so a fixed T0 made the settle test fail a day after it was written.
const T0 = Math.floor(Date.now() / 1000) - 3600 + 0.973099;

type Child = {
  id: string;
  parent?: string;
  source?: string;
  model?: string;
  started?: number;
  ended?: number | null;
  tokens?: [input: number, output: number, cacheRead?: number, cacheWrite?: number];
  calls?: number;
  usage?: { model: string; output: number; last?: number }[];
};

function setup() {
  const { dir, env } = tempHome();
  const hermesHome = join(dir, '.hermes');
  mkdirSync(hermesHome, { recursive: true });
  const file = join(hermesHome, 'state.db');
  const w = new Database(file);
  w.pragma('journal_mode = WAL');
  w.exec(DDL);
  w.exec('CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT)');
  const session = w.prepare(
    `INSERT INTO sessions (id, source, model, parent_session_id, started_at, ended_at, end_reason, input_tokens,
       output_tokens, cache_read_tokens, cache_write_tokens, api_call_count, cwd, system_prompt, title, origin_json,
       display_name, model_config, billing_provider, billing_base_url, estimated_cost_usd, cost_status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'custom', 'http://127.0.0.1:9/v1', 0, 'unknown')`,
  );
  const usage = w.prepare(
    `INSERT INTO session_model_usage (session_id, model, billing_provider, api_call_count, input_tokens, output_tokens,
       first_seen, last_seen) VALUES (?, ?, 'custom', 1, 10, ?, ?, ?)`,
  );
  const message = w.prepare('INSERT INTO messages (session_id, role, content) VALUES (?, ?, ?)');
  const prompt = (id: string) => [
    `${SENTINEL} system`,
    id === PARENT ? `${SENTINEL} title` : null, // title is UNIQUE in 0.19.0 (idx_sessions_title_unique)
    `{"chat":"${SENTINEL}"}`,
    `${SENTINEL} name`,
  ];
  const addParent = (id = PARENT) => {
    session.run(id, 'cli', 'gpt-6-astra', null, T0, null, null, 2300, 70, 0, 0, 3, '/work/demo', ...prompt(id), '{}');
    message.run(id, 'user', `${SENTINEL} user text`);
  };
  const addChild = (c: Child) => {
    const [input, output, cacheRead = 0, cacheWrite = 0] = c.tokens ?? [300, 30];
    const started = c.started ?? T0 + 2;
    session.run(
      c.id,
      c.source ?? 'subagent',
      c.model ?? 'gpt-6-luna',
      c.parent ?? PARENT,
      started,
      c.ended === undefined ? started + 0.5 : c.ended,
      c.ended === null ? null : 'agent_close',
      input,
      output,
      cacheRead,
      cacheWrite,
      c.calls ?? 1,
      null,
      ...prompt(c.id),
      `{"max_iterations": 50, "_delegate_from": "${c.parent ?? PARENT}"}`,
    );
    for (const u of c.usage ?? [{ model: c.model ?? 'gpt-6-luna', output }])
      usage.run(c.id, u.model, u.output, started + 0.1, u.last ?? started + 0.4);
    message.run(c.id, 'assistant', `${SENTINEL} child text\nResult: done`);
  };
  return {
    dir,
    env: { ...env, HERMES_HOME: hermesHome },
    hermesHome,
    file,
    w,
    addParent,
    addChild,
    many: (n: number) =>
      w.transaction(() => Array.from({ length: n }, (_, i) => addChild({ id: `c${i}`, started: T0 + i })))(),
    close: () => w.close(),
  };
}

function scan(env: Record<string, string>, db = openLedger(env)) {
  return scanTranscripts(db, [], testPricer(), { stores: defaultStoreFiles(env) }, env);
}

const diagnostics = (env: Record<string, string>): string => {
  try {
    return readFileSync(paths(env).diagnostics, 'utf8');
  } catch {
    return '';
  }
};

/** A row as the plugin's spool lines drain to it (hermes/tiergate/__init__.py: agentId = the child session id). */
function spooled(db: ReturnType<typeof openLedger>, over: Partial<CompletionRow>): void {
  recordCompletion(db, {
    harness: 'hermes',
    sessionId: PARENT,
    callId: 'call_e2e_1',
    agentId: CHILD,
    subagentType: 'leaf',
    project: null,
    requestedModel: null,
    servedModel: null,
    usage: null,
    status: 'pending',
    outcome: { result: null, verified: null, escalationFrom: null },
    startedAt: 1,
    endedAt: 1,
    usageSource: 'none',
    transcriptPath: null,
    incomplete: false,
    fallbackKey: 'x',
    ...over,
  });
}

/** Every row of every ledger table, as text: where a prompt's sentinel would show if any reader copied one. */
function ledgerDump(db: ReturnType<typeof openLedger>): string {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{ name: string }>();
  return tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())).join('\n');
}

describe('Hermes state.db reader', () => {
  it('finds the delegated children (source subagent with a parent) and skips parents and compression continuations', () => {
    const h = setup();
    h.addParent();
    h.addChild({
      id: CHILD,
      tokens: [300, 30, 40, 5],
      usage: [
        { model: 'gpt-6-luna', output: 20 },
        { model: 'gpt-6-astra', output: 10 },
      ],
    });
    // A compression continuation: a parent, but the parent's own source.
    h.addChild({ id: 'continuation', source: 'cli', parent: PARENT });
    h.close();
    const parses = readStateDb(h.file);
    expect(parses).toHaveLength(1);
    expect(parses[0]).toMatchObject({ harness: 'hermes', sessionId: PARENT, project: '/work/demo', requests: [] });
    expect(parses[0]!.children).toEqual([
      {
        agentId: CHILD,
        callId: null,
        subagentType: null,
        requestedModel: 'gpt-6-luna',
        servedModel: 'gpt-6-luna',
        usage: { input: 300, output: 30, cacheRead: 40, cacheWrite5m: 5, cacheWrite1h: 0, reasoning: 0, requests: 1 },
        outcome: { result: null, verified: null, escalationFrom: null },
        complete: true,
        incomplete: false,
        startedAt: Math.round((T0 + 2) * 1000),
        endedAt: Math.round((T0 + 2.5) * 1000),
        modelAsConfigured: true,
      },
    ]);
  });

  it('scan records a child whose spool line was lost: served model, tokens, cost, duration; no prompt text anywhere', () => {
    const h = setup();
    h.addParent();
    h.addChild({ id: CHILD, tokens: [300, 30] });
    h.close();
    expect(JSON.stringify(readStateDb(h.file))).not.toContain(SENTINEL);
    const db = openLedger(h.env);
    const s = scan(h.env, db);
    expect(s).toMatchObject({ files: 1, parsed: 1, failed: 0, completions: 1 });
    expect(s.stores).toEqual([{ harness: 'hermes', path: h.file, children: 1, error: null }]);
    const row = db
      .prepare(
        `SELECT dedupe_key, session_id, project, served_model, input, output, requests, status, duration_ms, usage_source,
           CAST(cost_pico AS TEXT) AS cost FROM completions`,
      )
      .all();
    const usage = { input: 300, output: 30, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 };
    expect(row).toEqual([
      {
        dedupe_key: `hermes:agent:${CHILD}`,
        session_id: PARENT,
        project: '/work/demo',
        served_model: 'gpt-6-luna',
        input: 300,
        output: 30,
        requests: 1,
        status: 'ok',
        duration_ms: 500,
        usage_source: 'scan',
        cost: String(testCost('gpt-6-luna', usage)),
      },
    ]);
    expect(ledgerDump(db)).not.toContain(SENTINEL);
    db.close();
    expect(diagnostics(h.env)).not.toContain(SENTINEL);
  });

  it('lands on the row the spool recorded for the same child: no second row, the spooled usage and model kept', () => {
    const h = setup();
    h.addParent();
    h.addChild({ id: CHILD, tokens: [999, 99] });
    h.close();
    const db = openLedger(h.env);
    // What the plugin's subagent_stop line drains to.
    spooled(db, {
      servedModel: 'gpt-6-luna-2026',
      usage: { input: 300, output: 30, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
      status: 'ok',
      outcome: { result: 'done', verified: 'yes', escalationFrom: null },
      endedAt: 2,
      usageSource: 'hermes-plugin',
    });
    for (let i = 0; i < 2; i++) scan(h.env, db);
    expect(
      db.prepare('SELECT dedupe_key, call_id, served_model, input, result, usage_source FROM completions').all(),
    ).toEqual([
      {
        dedupe_key: `hermes:agent:${CHILD}`,
        call_id: 'call_e2e_1',
        served_model: 'gpt-6-luna-2026',
        input: 300,
        result: 'done',
        usage_source: 'hermes-plugin',
      },
    ]);
    db.close();
  });

  it('a corrected child: the served model already recorded wins over the configured name state.db keeps', () => {
    const h = setup();
    h.addParent();
    // Hermes 0.19.0 keeps the configured (pricier) name after tiergate's llm_request correction sent gpt-6-luna.
    h.addChild({ id: CHILD, model: 'gpt-6-astra', tokens: [300, 30] });
    h.close();
    const db = openLedger(h.env);
    // The pending line of its subagent_start, with the model the correction sent.
    spooled(db, { servedModel: 'gpt-6-luna' });
    scan(h.env, db);
    const usage = { input: 300, output: 30, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 };
    expect(
      db.prepare('SELECT served_model, status, input, CAST(cost_pico AS TEXT) AS cost FROM completions').get(),
    ).toEqual({ served_model: 'gpt-6-luna', status: 'ok', input: 300, cost: String(testCost('gpt-6-luna', usage)) });
    db.close();
  });

  it('the observer pass settles a pending child (its subagent_stop never came) once state.db says it ended', () => {
    const h = setup();
    h.addParent();
    h.addChild({ id: CHILD, tokens: [300, 30] });
    h.addChild({ id: 'running', ended: null });
    h.close();
    const db = openLedger(h.env);
    const at = Math.round(T0 * 1000);
    for (const id of [CHILD, 'running']) spooled(db, { callId: `call-${id}`, agentId: id, startedAt: at, endedAt: at });
    const stats = runObserver(h.env, testPricer(), db);
    expect(stats?.reconciledPending).toBe(1);
    expect(
      db.prepare('SELECT agent_id, status, served_model, input, call_id FROM completions ORDER BY agent_id').all(),
    ).toEqual([
      { agent_id: CHILD, status: 'ok', served_model: 'gpt-6-luna', input: 300, call_id: `call-${CHILD}` },
      { agent_id: 'running', status: 'pending', served_model: null, input: null, call_id: 'call-running' },
    ]);
    db.close();
  });

  it('a child still running (or interrupted) is unknown, not ok; one without usage is left out', () => {
    const h = setup();
    h.addParent();
    h.addChild({ id: 'running', ended: null, tokens: [300, 30] });
    h.addChild({ id: 'no-usage', tokens: [0, 0], calls: 0, usage: [] });
    h.close();
    const db = openLedger(h.env);
    scan(h.env, db);
    expect(db.prepare('SELECT agent_id, status, incomplete FROM completions').all()).toEqual([
      { agent_id: 'running', status: 'unknown', incomplete: 1 },
    ]);
    db.close();
  });

  it('reads the newest children only, at most maxRows and never more than STATE_DB_MAX_ROWS', () => {
    const h = setup();
    h.addParent();
    h.many(STATE_DB_MAX_ROWS + 3);
    h.close();
    const ids = (maxRows?: number) =>
      readStateDb(h.file, { maxRows }).flatMap((p) => p.children!.map((c) => c.agentId));
    expect(ids(10)).toEqual(Array.from({ length: 10 }, (_, i) => `c${STATE_DB_MAX_ROWS + 2 - i}`));
    const all = ids(1e9);
    expect(all).toHaveLength(STATE_DB_MAX_ROWS);
    expect(all).not.toContain('c2');
    expect(readStateDb(h.file)[0]!.truncated).toBe(true);
    // `since` (scan --since; the observer pass's oldest pending child) is on the start time.
    const recent = readStateDb(h.file, { since: (T0 + STATE_DB_MAX_ROWS) * 1000 });
    expect(recent.flatMap((p) => p.children!.map((c) => c.agentId)).sort()).toEqual(['c5000', 'c5001', 'c5002']);
  });

  it('refuses a linked state.db, a linked -wal and a linked HERMES_HOME; scan says so once and records nothing', () => {
    const h = setup();
    h.addParent();
    h.addChild({ id: CHILD });
    h.close();
    const real = join(h.dir, 'elsewhere.db');
    renameSync(h.file, real);
    symlinkSync(real, h.file);
    expect(() => readStateDb(h.file)).toThrow(RefusedFile);
    const db = openLedger(h.env);
    const s = scan(h.env, db);
    expect(s).toMatchObject({ failed: 1, parsed: 0, completions: 0 });
    expect(s.stores[0]!.error).toMatch(/refused: symbolic link/);
    expect(db.prepare('SELECT COUNT(*) AS n FROM completions').get()).toEqual({ n: 0 });
    db.close();
    expect(
      diagnostics(h.env)
        .trim()
        .split('\n')
        .filter((l) => l.includes('observer:scan')),
    ).toHaveLength(1);

    const g = setup();
    g.addParent();
    g.close();
    // Closed cleanly, so checkpointed: no -wal left; a link in its place would be followed by SQLite.
    writeFileSync(join(g.dir, 'other-wal'), '');
    symlinkSync(join(g.dir, 'other-wal'), `${g.file}-wal`);
    expect(() => readStateDb(g.file)).toThrow(/refused: symbolic link/);

    const k = setup();
    k.addParent();
    k.close();
    const linked = join(k.dir, 'hermes-link');
    symlinkSync(k.hermesHome, linked);
    expect(() => readStateDb(join(linked, 'state.db'))).toThrow(/refused: symbolic link where a directory/);
  });

  it('a locked state.db fails open within its busy deadline, with one diagnostic', () => {
    const h = setup();
    h.addParent();
    h.addChild({ id: CHILD });
    // Another connection holds the lock until it closes (exclusive locking mode; a WAL reader would not wait otherwise).
    h.w.pragma('locking_mode = EXCLUSIVE');
    h.w.exec('BEGIN EXCLUSIVE');
    h.w.prepare('UPDATE sessions SET message_count = 1 WHERE id = ?').run(PARENT);
    h.w.exec('COMMIT');
    const db = openLedger(h.env);
    const t0 = performance.now();
    const s = scan(h.env, db);
    const took = performance.now() - t0;
    h.close();
    expect(s).toMatchObject({ failed: 1, completions: 0 });
    expect(s.stores[0]!.error).toMatch(/database is locked/);
    expect(took).toBeLessThan(5000);
    expect(diagnostics(h.env).match(/observer:scan/g)).toHaveLength(1);
    db.close();
  });

  it('a damaged state.db fails open with one diagnostic', () => {
    const h = setup();
    h.close();
    for (const f of readdirSync(h.hermesHome)) if (f !== 'state.db') renameSync(join(h.hermesHome, f), join(h.dir, f));
    writeFileSync(h.file, 'not a database, but long enough to be read as a header '.repeat(100));
    const s = scan(h.env);
    expect(s).toMatchObject({ failed: 1, completions: 0 });
    expect(s.stores[0]!.error).toMatch(/not a database/);
    expect(diagnostics(h.env).match(/observer:scan/g)).toHaveLength(1);
  });

  it('is found where Hermes keeps it ($HERMES_HOME, else ~/.hermes), and only when it exists', () => {
    expect(stateDbPath({ HERMES_HOME: '/h' }, '/home/u')).toBe('/h/state.db');
    expect(stateDbPath({}, '/home/u')).toBe('/home/u/.hermes/state.db');
    expect(hermes.stores?.paths({}, '/home/u')).toEqual(['/home/u/.hermes/state.db']);
    const { env } = tempHome();
    expect(defaultStoreFiles({ ...env, HERMES_HOME: join(env.HOME!, 'none') })).toEqual([]);
  });
});
