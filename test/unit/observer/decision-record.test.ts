/**
 * The decision record (issue 29) through the path every adapter takes: routeDispatch spools the decision with the model
 * the child would have run on without tiergate and both models' rates; the drain writes it to `decisions`; the child's
 * completion joins it (by dispatch id, else session + agent + order); the report's `saved` is the child's usage at the
 * without-tiergate rates minus what it cost. Per harness, one correction by agent switch or agent file and one by model
 * rewrite, each against a figure computed by hand from the rates below.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { capabilityFor } from '../../../src/adapters/capabilities.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import type { Harness } from '../../../src/contracts/harness.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import type { SpoolRecord } from '../../../src/contracts/spool.js';
import { paths } from '../../../src/io/paths.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { runObserver } from '../../../src/collect/drain.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { reconcileCompletions, recordCompletion, recordDispatch } from '../../../src/observer/ledger/store.js';
import { migrate } from '../../../src/observer/ledger/open.js';
import { MIGRATIONS } from '../../../src/observer/ledger/schema.js';
import { openBetterSqlite } from '../../../src/observer/ledger/driver-better-sqlite3.js';
import { buildReport } from '../../../src/report/query.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { queryReport } from '../../../src/report/query.js';
import { usd } from '../../../src/report/cells.js';
import { formatHtml } from '../../../src/report/format-html.js';
import { formatTable } from '../../../src/report/format-table.js';
import { chartModel } from '../../../src/report/html/chart-model.js';
import { buildHtmlData } from '../../../src/report/html/data.js';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import { routeDispatch } from '../../../src/runtime/dispatch.js';
import { agentLink, decisionKind } from '../../../src/runtime/decision-record.js';
import { priceDecisions } from '../../../src/report/decision-savings.js';
import { tempHome, testPricer } from './helpers.js';

afterEach(() => {
  clearRuntimeCache();
  resetSpoolFile();
});

/** USD per 1M tokens: big 10/50, parent 3/15, small 1/5 (cache rates unused: the usage has none). */
const BIG = { input: '10', output: '50' };
const PARENT = { input: '3', output: '15' };
const SMALL = { input: '1', output: '5' };
const USAGE = {
  input: 100_000,
  output: 10_000,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
};
/**
 * By hand, at 100,000 input and 10,000 output tokens: big $1.00 + $0.50 = $1.50, parent $0.30 + $0.15 = $0.45,
 * small $0.10 + $0.05 = $0.15. Saved, big -> parent: $1.05; big -> small: $1.35 (pico-USD below).
 */
const SAVED_BY_CHOSEN: Record<string, bigint> = {
  'fake/parent': 1_050_000_000_000n,
  'claude-sonnet-5-5': 1_050_000_000_000n,
  'fake/small': 1_350_000_000_000n,
  'claude-haiku-4-5': 1_350_000_000_000n,
};
/** What a correction's value runs on, as the completion reports it. */
const SERVED: Record<string, string> = { sonnet: 'claude-sonnet-5-5', haiku: 'claude-haiku-4-5' };

function home() {
  const { env } = tempHome();
  const e = { ...env, TIERGATE_PRICE_REFRESH: 'off' };
  const cfg = paths(e).config;
  mkdirSync(dirname(cfg), { recursive: true });
  const tiers = { cheap: 'fake/small', standard: 'fake/parent', premium: 'fake/big' };
  writeFileSync(
    cfg,
    JSON.stringify({
      codexRewrite: true,
      tiers: { codex: tiers, copilot: tiers },
      priceOverrides: {
        'fake/big': BIG,
        'fake/parent': PARENT,
        'fake/small': SMALL,
        'claude-opus-5-5': BIG,
        'claude-sonnet-5-5': PARENT,
        'claude-haiku-4-5': SMALL,
      },
    }),
  );
  clearRuntimeCache();
  resetSpoolFile();
  return e;
}

type Case = {
  name: string;
  harness: Harness;
  how: 'model rewrite' | 'agent switch' | 'agent file';
  obs: Partial<DispatchObservation>;
  without: string;
  withoutFrom: string;
};

const agentSwitch = (harness: Harness, from: string): Case => ({
  name: `${harness}: agent 'pricey' on fake/big switched to tiergate-parent`,
  harness,
  how: 'agent switch',
  obs: {
    requestedAgent: 'pricey',
    subagentType: 'pricey',
    agentModel: 'fake/big',
    agentModelFrom: from,
    candidates: [{ value: 'tiergate-parent', model: 'fake/parent', tier: 'parent' }],
    parentModel: 'fake/parent',
  },
  without: 'fake/big',
  withoutFrom: from.startsWith('opencode.json') ? 'harness-config' : 'agent-file',
});

const CASES: Case[] = [
  {
    name: 'claude: model opus rewritten under a sonnet parent',
    harness: 'claude',
    how: 'model rewrite',
    obs: { requestedModel: 'opus', parentModel: 'claude-sonnet-5-5', subagentType: 'general-purpose' },
    without: 'opus',
    withoutFrom: 'call',
  },
  {
    name: "claude: an agent file's model: opus, rewritten",
    harness: 'claude',
    how: 'agent file',
    obs: {
      agentModel: 'opus',
      agentModelFrom: '/p/.claude/agents/pricey.md',
      parentModel: 'claude-sonnet-5-5',
      subagentType: 'pricey',
    },
    without: 'opus',
    withoutFrom: 'agent-file',
  },
  {
    name: 'codex (codexRewrite): model fake/big rewritten',
    harness: 'codex',
    how: 'model rewrite',
    obs: { requestedModel: 'fake/big', parentModel: 'fake/parent' },
    without: 'fake/big',
    withoutFrom: 'call',
  },
  {
    name: 'copilot: the call names fake/big, rewritten',
    harness: 'copilot',
    how: 'model rewrite',
    obs: { requestedModel: 'fake/big', parentModel: 'fake/parent', subagentType: 'general-purpose' },
    without: 'fake/big',
    withoutFrom: 'call',
  },
  {
    name: "copilot: a custom agent's model: fake/big, rewritten",
    harness: 'copilot',
    how: 'agent file',
    obs: {
      requestedAgent: 'pricey',
      subagentType: 'pricey',
      agentModel: 'fake/big',
      agentModelFrom: '/h/.copilot/agents/pricey.agent.md',
      parentModel: 'fake/parent',
    },
    without: 'fake/big',
    withoutFrom: 'agent-file',
  },
  agentSwitch('opencode', 'opencode.json agent.pricey'),
  agentSwitch('pi', '/h/.pi/agent/agents/pricey.md'),
  agentSwitch('gemini', '/h/.gemini/agents/pricey.md'),
];

function observation(c: Case, callId: string | null, at: number): DispatchObservation {
  const policy = { ...DEFAULT_POLICY, codexRewrite: true };
  const cap = capabilityFor(c.harness, policy);
  const agentKind = cap.rewriteKind === 'agent';
  return {
    kind: 'dispatch',
    harness: c.harness,
    sessionId: 'S1',
    callId,
    parentModel: null,
    parentModelSource: 'test',
    requestedModel: null,
    requestedAgent: null,
    requestedTier: null,
    agentModel: null,
    subagentType: null,
    capability: agentKind ? { ...cap, legalValues: ['tiergate-parent'] } : cap,
    toolInput: { [cap.rewriteField ?? 'model']: c.obs.requestedModel ?? c.obs.requestedAgent ?? null },
    cwd: null,
    escalationFrom: null,
    at,
    ...c.obs,
  };
}

function complete(
  env: Record<string, string>,
  c: Case,
  callId: string | null,
  served: string,
  agent: string | null,
  at: number,
  agentId = `child-${callId ?? at}`,
) {
  const rec: SpoolRecord = {
    type: 'completion',
    observation: {
      kind: 'completion',
      harness: c.harness,
      sessionId: 'S1',
      callId,
      agentId,
      subagentType: agent,
      servedModel: served,
      usage: USAGE,
      status: 'ok',
      outcome: { result: 'done', verified: 'yes', escalationFrom: null },
      startedAt: at,
      endedAt: at + 1000,
      usageSource: 'test',
      dedupeKey: null,
    },
    transcriptPath: null,
  };
  appendSpool(rec, env);
}

function ledgerOf(env: Record<string, string>) {
  const db = openLedger(env);
  const pricer = loadPricer(env, null);
  runObserver(env, pricer, db);
  return { db, pricer };
}

describe('decision record: every harness, a correction saves exactly the hand-computed figure', () => {
  for (const c of CASES) {
    it(`${c.name} (${c.how})`, () => {
      const env = home();
      const d = routeDispatch(observation(c, 'call-1', 1_000), env);
      expect(d.action).toBe('correct');
      if (d.action !== 'correct') return;
      const agentKind = c.how === 'agent switch';
      const chosen = agentKind ? 'fake/parent' : (SERVED[d.value] ?? d.value);
      complete(env, c, 'call-1', chosen, agentKind ? d.value : (c.obs.subagentType ?? null), 2_000);
      const { db, pricer } = ledgerOf(env);
      try {
        const dec = db.prepare('SELECT * FROM decisions').all() as Record<string, unknown>[];
        expect(dec).toHaveLength(1);
        expect(dec[0]).toMatchObject({
          harness: c.harness,
          session_id: 'S1',
          call_id: 'call-1',
          without_model: c.without,
          without_from: c.withoutFrom,
          kind: 'correct',
          to_value: d.value,
          without_rates: expect.stringMatching(/^10,50,/),
          join_method: 'dispatch-id',
        });
        const rows = queryReport(db, { by: 'agent' }, pricer);
        const expected = SAVED_BY_CHOSEN[chosen];
        expect(expected, chosen).toBeDefined();
        expect(BigInt(rows.totals!.saved.pico!)).toBe(expected);
        expect(rows.totals!.savedEstimatedRuns).toBe(0);
        // Grouped by the agent the dispatch asked for, the correction beside it; the pair reads asked -> served.
        const asked = c.obs.requestedAgent ?? c.obs.subagentType ?? null;
        expect(rows.map((r) => r.group)).toEqual([asked]);
        expect(rows[0]!.correctedTo).toEqual([{ value: d.value, runs: 1 }]);
        expect(rows[0]!.models).toEqual([{ requested: c.without, served: chosen, runs: 1, corrected: 1 }]);
      } finally {
        db.close();
      }
    });
  }
});

describe('decision record: joins, denials and ledgers from before it', () => {
  const pi = CASES.find((c) => c.harness === 'pi')!;

  it('a completion without a dispatch id joins by session + agent + order, and says so', () => {
    const env = home();
    // Recent: the best match looks back over the observer's give-up window only.
    const T = Date.now() - 60_000;
    routeDispatch(observation(pi, 'call-a', T + 1_000), env);
    routeDispatch(observation(pi, 'call-b', T + 5_000), env);
    // Both children report no call id; each pairs with the earliest open decision dispatched before it started.
    complete(env, pi, null, 'fake/parent', 'tiergate-parent', T + 2_000);
    complete(env, pi, null, 'fake/parent', 'tiergate-parent', T + 6_000);
    const { db } = ledgerOf(env);
    try {
      const rows = db
        .prepare(
          `SELECT o.call_id AS call, o.join_method AS method, c.started_at AS started FROM decisions o
           JOIN completions c ON c.id = o.completion_id ORDER BY o.at`,
        )
        .all();
      expect(rows).toEqual([
        { call: 'call-a', method: 'session-agent-order', started: T + 2_000 },
        { call: 'call-b', method: 'session-agent-order', started: T + 6_000 },
      ]);
    } finally {
      db.close();
    }
  });

  it('a best match whose completion later names its dispatch is corrected: joined by id to the right one', () => {
    const env = home();
    const T = Date.now() - 60_000;
    routeDispatch(observation(pi, 'call-a', T + 1_000), env);
    routeDispatch(observation(pi, 'call-b', T + 5_000), env);
    complete(env, pi, null, 'fake/parent', 'tiergate-parent', T + 6_000, 'child-x');
    const first = ledgerOf(env);
    try {
      // Order alone pairs it with the earlier dispatch.
      expect(first.db.prepare('SELECT call_id FROM decisions WHERE completion_id IS NOT NULL').all()).toEqual([
        { call_id: 'call-a' },
      ]);
    } finally {
      first.db.close();
    }
    resetSpoolFile();
    // The same child reported again, now with its dispatch's id (a late flush).
    complete(env, pi, 'call-b', 'fake/parent', 'tiergate-parent', T + 6_000, 'child-x');
    const second = ledgerOf(env); // the check undoes the match
    second.db.close();
    const { db } = ledgerOf(env); // and the exact join links the right dispatch
    try {
      expect(db.prepare('SELECT call_id, join_method FROM decisions ORDER BY at').all()).toEqual([
        { call_id: 'call-a', join_method: null },
        { call_id: 'call-b', join_method: 'dispatch-id' },
      ]);
    } finally {
      db.close();
    }
  });

  it('a denial stays visible with no completion; a retry that ran counts as retried, no spend claimed', () => {
    const env = home();
    // Codex without codexRewrite cannot be rewritten: over the ceiling it is denied with a retry.
    const codexDeny = routeDispatch(
      { ...observation(CASES[2]!, 'call-d', 1_000), capability: capabilityFor('codex', DEFAULT_POLICY) },
      env,
    );
    expect(codexDeny.action).toBe('deny');
    routeDispatch({ ...observation(CASES[2]!, 'call-r', 2_000), requestedModel: 'fake/small' }, env);
    const { db, pricer } = ledgerOf(env);
    try {
      const open = db
        .prepare(`SELECT kind, completion_id FROM decisions WHERE harness = 'codex' ORDER BY at`)
        .all() as { kind: string; completion_id: number | null }[];
      expect(open).toEqual([
        { kind: 'deny', completion_id: null },
        { kind: 'allow', completion_id: null },
      ]);
      const t = queryReport(db, { by: 'harness' }, pricer).totals!;
      expect(t.denied).toBe(1);
      expect(t.deniedRetried).toBe(1);
      expect(t.saved.pico).toBeNull();
    } finally {
      db.close();
    }
  });

  it('a correction spooled before the decision record keeps the old estimate, marked as estimated', () => {
    const env = home();
    const c = CASES[0]!;
    const d = routeDispatch(observation(c, 'toolu-old', 1_000), env);
    expect(d.action).toBe('correct');
    // The same line as an older tiergate wrote it: no `detail`.
    const spool = paths(env).spoolDir;
    for (const f of readdirSync(spool)) {
      const p = `${spool}/${f}`;
      const lines = readFileSync(p, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { decision?: Record<string, unknown> });
      for (const l of lines) delete l.decision?.detail;
      writeFileSync(p, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    }
    complete(env, c, 'toolu-old', 'claude-sonnet-5-5', 'general-purpose', 2_000);
    const { db, pricer } = ledgerOf(env);
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM decisions').get()).toEqual({ n: 0 });
      const t = queryReport(db, { by: 'agent' }, pricer).totals!;
      expect(t.savedEstimatedRuns).toBe(1);
      // The old estimate: the named model (opus) at today's catalog, here the same overrides: the same figure.
      expect(BigInt(t.saved.pico!)).toBe(1_050_000_000_000n);
    } finally {
      db.close();
    }
  });
});

describe('decision record: table, JSON and HTML from the same query', () => {
  it('the HTML headline equals the table total; the requested -> served chart shows the corrections', () => {
    const env = home();
    let n = 0;
    for (const c of CASES) {
      const call = `call-${++n}`;
      const d = routeDispatch({ ...observation(c, call, n * 10_000), sessionId: `S${n}` }, env);
      if (d.action !== 'correct') throw new Error(`${c.name}: ${d.action}`);
      const agentKind = c.how === 'agent switch';
      const served = agentKind ? 'fake/parent' : (SERVED[d.value] ?? d.value);
      complete(env, { ...c }, call, served, agentKind ? d.value : (c.obs.subagentType ?? null), n * 10_000 + 1);
    }
    // completions above were spooled with session S1; the join is by dispatch id, so the session does not matter.
    const { db, pricer } = ledgerOf(env);
    try {
      const data = buildHtmlData(db, { by: 'agent' }, new Date(), pricer);
      const t = data.main.totals;
      // Hand-computed: 6 corrections to a parent-priced model ($1.05 each) and 2 Claude ones to sonnet ($1.05 each).
      expect(BigInt(t.saved.pico!)).toBe(8n * 1_050_000_000_000n);
      const html = formatHtml(data, { chartLib: '' });
      expect(html).toContain(`data-total="saved" data-usd="${t.saved.usd}"`);
      const table = formatTable(data.main, { width: 160, color: false });
      const totalLine = table.split('\n').find((l) => l.startsWith('│ total'))!;
      expect(totalLine).toContain(usd(t.saved)!);
      const model = chartModel(data);
      expect(model.models.correctedRuns).toBe(CASES.length);
      expect(model.models.mismatchedRuns).toBe(0);
      expect(model.models.pairs.find((p) => p.requested === 'fake/big' && p.served === 'fake/parent')).toMatchObject({
        corrected: 6,
        mismatch: false,
      });
      expect(html).toContain(`${CASES.length} runs corrected by tiergate`);
      // The table's pairs: a correction is shown as one, never as a mismatch; the corrected values beside the count.
      expect(html).toContain(
        '<span class="pair corrected" title="corrected by tiergate"><span class="id">fake/big</span> → <span class="id">fake/parent</span></span>',
      );
      expect(html).not.toContain('class="pair mismatch"');
      expect(html).toContain('(→ tiergate-parent');
    } finally {
      db.close();
    }
  });
});

describe('decision kinds and the budget downshift label', () => {
  it('reason codes map to the recorded kind', () => {
    expect(decisionKind({ action: 'allow', reason: 'warn-only' })).toBe('warn');
    expect(decisionKind({ action: 'correct', reason: 'budget-downshifted' })).toBe('budget-downshift');
    expect(decisionKind({ action: 'deny', reason: 'budget-downshifted' })).toBe('budget-deny');
    expect(decisionKind({ action: 'deny', reason: 'budget-denied' })).toBe('budget-deny');
    expect(decisionKind({ action: 'correct', reason: 'over-ceiling-corrected' })).toBe('correct');
    expect(decisionKind({ action: 'deny', reason: 'over-ceiling-denied' })).toBe('deny');
  });

  it('the agent-definition link is read from where the adapter found the model', () => {
    expect(agentLink('/h/.claude/agents/x.md')).toBe('agent-file');
    expect(agentLink('CLAUDE_CODE_SUBAGENT_MODEL')).toBe('environment');
    expect(agentLink('opencode.json agent.pricey')).toBe('harness-config');
    // A harness's own config file is config even when it is YAML or TOML (Hermes, Codex, Grok).
    expect(agentLink('config.yaml delegation.model')).toBe('harness-config');
    expect(agentLink('/h/.codex/config.toml [agents.reviewer]')).toBe('harness-config');
    expect(agentLink('/h/.grok/config.toml [subagents.models] explore')).toBe('harness-config');
    expect(agentLink('/h/.codex/agents/reviewer.toml')).toBe('agent-file');
    expect(agentLink(null)).toBe('harness-config');
  });

  it("the link's indexOf search holds on this Node: String#toLowerCase lowers into ASCII only U+0130 and U+212A", () => {
    // agentLink searches a lower-cased copy, made with these two replaced: no other character may lower to one in ASCII
    // or change length.
    const intoAscii: string[] = [];
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCodePoint(c);
      const lower = ch.toLowerCase();
      if (lower.length !== ch.length || [...lower].some((x) => x.codePointAt(0)! < 0x80))
        intoAscii.push(c.toString(16));
    }
    expect(intoAscii).toEqual(['130', '212a']);
    // A Gemini agent's link (the path, then the model as written and as sent) is an agent file, with either character.
    const gemini = '/h/.gemini/agents/pricey.md: gemini-3-pro-preview, sent as gemini-3.1-pro-preview-customtools';
    expect(agentLink(gemini)).toBe('agent-file');
    expect(agentLink(`${gemini} \u212a`)).toBe('agent-file');
    expect(agentLink('/h/.gemini/agents/SETTINGS.md: x')).toBe('harness-config');
  });

  it('the link agrees with the regular expressions it stands for (character tests instead, for the hook)', () => {
    const byRegExp = (from: string) => {
      if (!from) return 'harness-config';
      if (/^[A-Z][A-Z0-9_]+\b/.test(from)) return 'environment';
      if (/\.(md|toml|ya?ml)\b/i.test(from) && !/settings|opencode\.jsonc?|config\.(jsonc?|toml|ya?ml)\b/i.test(from))
        return 'agent-file';
      return 'harness-config';
    };
    const parts = [
      '/',
      '.',
      '.md',
      '.MD',
      '.Md',
      '.toml',
      '.yaml',
      '.yml',
      '.YaMl',
      '.ym',
      'l',
      'x',
      '_',
      '-',
      '1',
      ' ',
      'A',
      'B_',
      'CLAUDE',
      'Ab',
      'a',
      'settings',
      'SETTINGS',
      'setting',
      'opencode.json',
      'OpenCode.JSONC',
      'opencode',
      'config.',
      'Config.',
      'json',
      'jsonc',
      'toml',
      'yml',
      'yaml',
      'mdx',
      '\u212a',
      '\u0130',
      'é',
      'config.yml',
      ':',
    ];
    let seed = 7;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const seen: string[] = [];
    for (let i = 0; i < 20000; i++) {
      let s = '';
      for (let k = rand(6); k >= 0; k--) s += parts[rand(parts.length)];
      expect([s, agentLink(s)]).toEqual([s, byRegExp(s)]);
      seen.push(agentLink(s));
    }
    // The corpus reaches every answer.
    expect(new Set(seen)).toEqual(new Set(['environment', 'agent-file', 'harness-config']));
  });

  it('a budget downshift saves, and its part is labelled apart', () => {
    const run = {
      g: 'a',
      harness: 'claude' as const,
      baseline: null,
      cost: '450000000000', // $0.45: 100,000 in and 10,000 out at 3/15
      first: 1,
      input: 100_000,
      output: 10_000,
      cache_read: 0,
      cache_write_5m: 0,
      cache_write_1h: 0,
      reasoning: 0,
      requests: 1,
      rates: '10,50,1,12.5,20',
    };
    const [agg] = priceDecisions(
      [
        { ...run, kind: 'budget-downshift' },
        { ...run, kind: 'correct' },
      ],
      null,
    );
    expect(agg).toMatchObject({ corrected: 2, savedRuns: 2, estimated: 0 });
    expect(agg!.saved).toBe(2n * 1_050_000_000_000n);
    expect(agg!.budget).toBe(1_050_000_000_000n);
  });
});

describe('a decision drained after its completion was joined', () => {
  it('takes the join (dispatch-id) and labels the run with what was asked', () => {
    const env = home();
    const pi = CASES.find((c) => c.harness === 'pi')!;
    // The child completes and is joined by call id to a dispatch tiergate scan found first (no decision record).
    complete(env, pi, 'call-late', 'fake/parent', 'tiergate-parent', Date.now() - 5_000);
    const first = ledgerOf(env);
    try {
      recordDispatch(
        first.db,
        {
          harness: 'pi',
          sessionId: 'S1',
          callId: 'call-late',
          at: Date.now() - 6_000,
          project: null,
          parentModel: 'fake/parent',
          parentModelSource: 'scan',
          requestedModel: null,
          requestedAgent: 'pricey',
          requestedTier: null,
          subagentType: 'pricey',
          action: null,
          reason: null,
          tier: null,
          effectiveModel: null,
          catalogVersion: null,
          escalationFrom: null,
          childAgentId: null,
          source: 'scan',
        },
        'x',
      );
      reconcileCompletions(first.db, first.pricer);
      expect(first.db.prepare('SELECT subagent_type FROM completions').get()).toEqual({
        subagent_type: 'tiergate-parent',
      });
    } finally {
      first.db.close();
    }
    // Then the hook's line arrives: the decision takes the existing join and the run its labels.
    routeDispatch(observation(pi, 'call-late', Date.now() - 6_000), env);
    const { db } = ledgerOf(env);
    try {
      expect(db.prepare('SELECT join_method, completion_id IS NOT NULL AS joined FROM decisions').get()).toEqual({
        join_method: 'dispatch-id',
        joined: 1,
      });
      expect(db.prepare('SELECT subagent_type, requested_model FROM completions').get()).toEqual({
        subagent_type: 'pricey',
        requested_model: 'fake/big',
      });
    } finally {
      db.close();
    }
  });
});

describe('a ledger from before the decision record (schema 9)', () => {
  it('migrates, keeps its rows, and reports their saving as the old estimate, marked', () => {
    const { dir } = tempHome();
    const db = openBetterSqlite(join(dir, 'v9.sqlite'), { busyTimeoutMs: 1000 });
    const pricer = testPricer();
    const usage = {
      input: 1000,
      output: 100,
      cacheRead: 0,
      cacheWrite5m: 0,
      cacheWrite1h: 0,
      reasoning: 0,
      requests: 1,
    };
    try {
      expect(migrate(db, MIGRATIONS.slice(0, 9))).toBe(9);
      recordDispatch(
        db,
        {
          harness: 'claude',
          sessionId: 'S',
          callId: 'toolu_old',
          at: 1_000,
          project: null,
          parentModel: 'claude-sonnet-5-5',
          parentModelSource: 'transcript-tail',
          requestedModel: 'claude-opus-5-5',
          requestedAgent: null,
          requestedTier: null,
          subagentType: 'general-purpose',
          action: 'correct',
          reason: 'over-ceiling-corrected',
          tier: 'parent',
          effectiveModel: 'sonnet',
          catalogVersion: 'old',
          escalationFrom: null,
          childAgentId: null,
          source: 'spool',
        },
        'k',
      );
      recordCompletion(db, {
        harness: 'claude',
        sessionId: 'S',
        callId: 'toolu_old',
        agentId: 'a-old',
        subagentType: 'general-purpose',
        project: null,
        requestedModel: null,
        servedModel: 'claude-sonnet-5-5',
        usage,
        status: 'ok',
        outcome: { result: 'done', verified: 'yes', escalationFrom: null },
        startedAt: 1_500,
        endedAt: 2_000,
        usageSource: 'transcript-tail',
        transcriptPath: null,
        incomplete: false,
        fallbackKey: 'f',
      });
      expect(migrate(db)).toBe(MIGRATIONS.length - 9);
      db.transaction(() => reconcileCompletions(db, pricer));
      const report = buildReport(db, { by: 'agent' }, new Date(), pricer);
      const t = report.totals;
      expect(t.savedEstimatedRuns).toBe(1);
      // opus 4/20 vs sonnet 2/10 (helpers.ts TEST_RATES): 1000 x $2/M + 100 x $10/M = $0.003.
      expect(t.saved.pico).toBe('3000000000');
      expect(formatTable(report)).toContain('estimated (dispatch not recorded): 1 of the 1 saved run');
      expect(db.prepare('SELECT COUNT(*) AS n FROM decisions').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});
