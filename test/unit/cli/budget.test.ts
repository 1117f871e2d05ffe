/**
 * The budgets around the dispatch, through the built CLI (dist/cli.js): `tiergate budget` (text and --json),
 * `config check` listing them, `explain` deciding with them, `doctor` flagging one exceeded today, and `report`'s
 * budget lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompletionObservation } from '../../../src/contracts/observation.js';
import { noteSpend } from '../../../src/observer/spend-record.js';
import { pageMain } from '../../../src/report/html/page-script.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { recordCompletion } from '../../../src/observer/ledger/store.js';

const root = join(import.meta.dirname, '../../..');
const USD = 1_000_000_000_000n;

function home(budgets: Record<string, unknown> | null) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-budget-cli-'));
  const env = {
    TIERGATE_HOME: join(dir, 'tg'),
    HOME: dir,
    PATH: process.env.PATH ?? '',
    TIERGATE_PRICE_REFRESH: 'off',
    TZ: 'UTC',
    // One line per statement: these tests read the text; wrapping to the terminal is tested in terminal-width.test.ts.
    COLUMNS: '400',
  };
  mkdirSync(join(dir, 'tg', 'config'), { recursive: true });
  if (budgets) writeFileSync(join(dir, 'tg', 'config', 'config.json'), JSON.stringify({ budgets }));
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
  return { dir, env, cli };
}

/** A child of session `s` that cost `pico` (priced by a stand-in pricer), counted as the completion hooks count it. */
function spent(env: Record<string, string>, s: string, agentId: string, pico: bigint | null): void {
  const obs: CompletionObservation = {
    kind: 'completion',
    harness: 'claude',
    sessionId: s,
    callId: null,
    agentId,
    subagentType: null,
    servedModel: 'm',
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
    status: 'ok',
    outcome: { result: null, verified: null, escalationFrom: null },
    startedAt: null,
    endedAt: Date.now(),
    usageSource: 'test',
    dedupeKey: null,
  };
  noteSpend(obs, env, {
    pricer: {
      catalogVersion: 't',
      price: () => (pico === null ? null : { picoUsd: pico, catalogVersion: 't', modelId: 'm' }),
    },
  });
}

describe('tiergate budget', () => {
  it('action stop: worded as refuse and stop; the stopped children and limit denials lines, also without a budget', () => {
    const h = home({ day: '0.01', action: 'stop' });
    spent(h.env, 'sess-a', 'a1', (2n * USD) / 100n);
    const r = h.cli('budget');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/past a budget: refuse subagents and stop running ones;/);
    expect(r.stdout).toMatch(/today: the next subagent is refused; running ones stop at their next tool call/);
    expect(r.stdout).toMatch(/\n {2}stopped children: 0 today, 0 this month \(budgets\.action "stop"/);
    expect(r.stdout).not.toMatch(/limit denials/);
    const json = JSON.parse(h.cli('budget', '--json').stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ stopped: { today: 0, month: 0 }, limitDenied: { today: 0, month: 0 } });
    // No budget, a limit: the limit's line under "no budget set".
    writeFileSync(join(h.dir, 'tg', 'config', 'config.json'), JSON.stringify({ limits: { subagentsPerSession: 3 } }));
    const l = h.cli('budget');
    expect(l.stdout).toMatch(
      /^no budget set\. .*\nfan-out limits:\n {2}limit denials: 0 today, 0 this month \(limits\.subagentsPerSession 3\)\n$/s,
    );
  });

  it('each budget, the spend against it and what happens next (after draining: spooled spend is kept)', () => {
    const h = home({ session: '5', day: '0.01', month: '400', warnAt: 0.5 });
    spent(h.env, 'sess-a', 'a1', (2n * USD) / 100n); // $0.02: the day is spent
    spent(h.env, 'sess-b', 'b1', null);
    const r = h.cli('budget');
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(
      /^budgets \(USD of subagent spend; days and months in UTC\); past a budget: move subagents to the cheap tier; warn at 50%/,
    );
    expect(out).toMatch(
      /day\s+\$0\.01\s+over\s+\$0\.0200 spent \(200%\), 1 unpriced; today: the next subagent moves to the cheap tier/,
    );
    expect(out).toMatch(
      /month\s+\$400\s+warning\s+\$0\.0200 spent \(0%\), 1 unpriced; this month: dispatches proceed; unpriced children make the spend a lower bound/,
    );
    expect(out).toMatch(/session\s+\$5\s+warning\s+\$0\.0000 spent \(0%\), 1 unpriced; session claude:sess-b/);
    expect(out).toMatch(/session\s+\$5\s+ok\s+\$0\.0200 spent \(0%\); session claude:sess-a: dispatches proceed/);
    const json = JSON.parse(h.cli('budget', '--json', '--no-drain').stdout) as {
      zone: string;
      rows: Array<Record<string, unknown>>;
    };
    expect(json.zone).toBe('UTC');
    expect(json.rows.find((x) => x.kind === 'day')).toMatchObject({
      limit: '0.01',
      spent: '0.02',
      unknown: 1,
      status: 'over',
      share: 2,
    });
  });

  it('no budget set: says how to set one', () => {
    const h = home(null);
    expect(h.cli('budget').stdout).toMatch(/^no budget set\. Add one to .*config\.json/);
  });

  it('action deny: the next subagent is refused', () => {
    const h = home({ session: '0.01', action: 'deny' });
    spent(h.env, 's', 'a1', USD);
    expect(h.cli('budget', '--no-drain').stdout).toMatch(
      /session\s+\$0\.01\s+over\s+\$1\.00 spent \(10000%\); session claude:s: the next subagent is refused/,
    );
  });

  it('action ask: the heading and the line say the prompt, and the refusal where no one can answer', () => {
    const h = home({ session: '0.01', action: 'ask' });
    spent(h.env, 's', 'a1', USD);
    const out = h.cli('budget', '--no-drain').stdout;
    expect(out).toMatch(/past a budget: ask at the harness's permission prompt \(refuse where no one can answer\);/);
    expect(out).toMatch(/session claude:s: the next subagent is asked about \(refused where no one can answer\)/);
    // The asks line under the budgets, shown because the policy asks (none raised yet); --json carries the counts.
    expect(out).toMatch(
      /\n {2}asks: 0 today \(0 approved and ran\), 0 this month \(0 approved and ran\) \(budgets\.action "ask": /,
    );
    const json = JSON.parse(h.cli('budget', '--json', '--no-drain').stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ asked: { today: 0, month: 0, ran: { today: 0, month: 0 } } });
  });
});

describe('config check, explain, doctor, report', () => {
  it('config check lists the budgets', () => {
    const h = home({ session: '5', day: '40', sessionTotal: '20', action: 'deny' });
    const r = h.cli('config', 'check');
    expect(r.stdout).toContain(
      "budgets: session $5, session total $20, day $40; past a budget: deny; warn at 80% (session total only where the harness reports it: Claude Code's hooks module, OpenCode and pi)",
    );
    expect(home(null).cli('config', 'check').stdout).toContain('budgets: none set');
  });

  it("explain decides with today's spend and shows the budget state", () => {
    const h = home({ day: '0.01' });
    spent(h.env, 's', 'a1', USD);
    const r = h.cli('explain', '--parent', 'claude-opus-5-5', '--child', 'opus');
    expect(r.stdout).toMatch(/^decision: CORRECT \(budget-downshifted\)/);
    expect(r.stdout).toMatch(/\n {2}set model = "haiku"\n/);
    expect(r.stdout).toMatch(
      /\nbudget: over \(over the daily budget of \$0\.01 \(\$1\.00 spent\)\)\n {2}day\s+\$0\.01\s+over\s+\$1\.00 spent\n/,
    );
    const under = home({ day: '100' });
    expect(under.cli('explain', '--parent', 'claude-opus-5-5', '--child', 'opus').stdout).toMatch(
      /^decision: ALLOW \(within-ceiling\)[\s\S]*\nbudget: ok \(within every budget\)/,
    );
  });

  it('doctor warns about a budget exceeded today, and is quiet about one that is not', () => {
    const h = home({ day: '0.01', month: '100' });
    spent(h.env, 's', 'a1', USD);
    const doc = JSON.parse(h.cli('doctor', '--json').stdout) as {
      checks: Array<{ section: string; name: string; status: string; detail: string }>;
    };
    const budget = doc.checks.filter((c) => c.section === 'budget');
    expect(budget.find((c) => c.name === 'day budget')).toMatchObject({ status: 'warn' });
    expect(budget.find((c) => c.name === 'day budget')!.detail).toMatch(
      /^exceeded today: \$1\.00 of \$0\.01; the next subagent moves to the cheap tier \(raise budgets\.day to go on\)/,
    );
    expect(budget.find((c) => c.name === 'month budget')).toMatchObject({ status: 'ok' });
  });

  it('a child whose spend could not be read counts as unknown, never $0: diagnosed, shown by budget and doctor', () => {
    const h = home({ day: '40' });
    spent(h.env, 's', 'a1', USD / 100n);
    // No usage in its transcript tail (a tail too short to hold one, say): priced by nothing.
    noteSpend(
      {
        kind: 'completion',
        harness: 'claude',
        sessionId: 's',
        callId: 'toolu_blind',
        agentId: 'blind',
        subagentType: null,
        servedModel: null,
        usage: null,
        status: 'ok',
        outcome: { result: null, verified: null, escalationFrom: null },
        startedAt: null,
        endedAt: Date.now(),
        usageSource: 'none',
        dedupeKey: null,
      },
      h.env,
      { pricer: { catalogVersion: 't', price: () => null } },
    );
    expect(readFileSync(join(h.env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')).toContain(
      "a child's spend could not be read (no usage found in its transcript (tail)): counted as unknown against the budgets, never as $0",
    );
    expect(h.cli('budget', '--no-drain').stdout).toMatch(/day\s+\$40\s+warning\s+\$0\.0100 spent \(0%\), 1 unpriced/);
    const doc = JSON.parse(h.cli('doctor', '--json').stdout) as {
      checks: Array<{ section: string; name: string; status: string; detail: string }>;
    };
    const day = doc.checks.find((c) => c.section === 'budget' && c.name === 'day budget')!;
    expect(day.status).toBe('warn');
    expect(day.detail).toMatch(/\(\+1 unpriced\); 1 child's spend could not be read .*counted as unknown/);
  });
});

/** One priced child in the ledger, so the page has charts (an empty ledger gets the empty state). */
function ledgerRow(env: Record<string, string>): void {
  const db = openLedger(env);
  try {
    recordCompletion(db, {
      harness: 'claude',
      sessionId: 's',
      callId: null,
      agentId: 'a1',
      subagentType: null,
      project: null,
      requestedModel: null,
      servedModel: 'claude-haiku-5-5',
      usage: { input: 10, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
      status: 'ok',
      outcome: { result: null, verified: null, escalationFrom: null },
      startedAt: null,
      endedAt: Date.now(),
      usageSource: 'test',
      transcriptPath: null,
      incomplete: false,
      fallbackKey: 'a1',
      cost: { picoUsd: 1000n, catalogVersion: 't', modelId: 'claude-haiku-5-5' },
    });
  } finally {
    db.close();
  }
}

const CHARTS = /<script type="application\/json" id="tiergate-charts">([\s\S]*?)<\/script>/;

describe('report: budget lines under the table and on the HTML cost chart', () => {
  it('the table is followed by the budget lines; --json is not changed', () => {
    const h = home({ day: '0.01' });
    spent(h.env, 's', 'a1', USD);
    const r = h.cli('report');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /\nbudgets \(past one: move subagents to the cheap tier; 'tiergate budget' for more\):\n {2}day\s+\$0\.01\s+over\s+\$1\.00 spent \(10000%\); today: the next subagent moves to the cheap tier\n$/,
    );
    expect(h.cli('report', '--json').stdout).not.toMatch(/budget/);
    expect(home(null).cli('report').stdout).not.toMatch(/budgets/);
  });

  it('the page carries the daily budget for its cost chart', () => {
    const h = home({ day: '0.5' });
    const other = home(null);
    for (const env of [h.env, other.env]) ledgerRow(env);
    const file = join(h.dir, 'r.html');
    expect(h.cli('report', '--html', file).status).toBe(0);
    const html = readFileSync(file, 'utf8');
    const model = JSON.parse(CHARTS.exec(html)![1]!);
    expect(model.costByTier.dayBudgetUsd).toBe(0.5);
    other.cli('report', '--html', file);
    expect(JSON.parse(CHARTS.exec(readFileSync(file, 'utf8'))![1]!).costByTier.dayBudgetUsd).toBeNull();
  });

  it('the page script draws it as a dashed line of its own stack, with its own tooltip', () => {
    const configs: Array<{ data: { datasets: Array<Record<string, unknown>> }; options: any }> = [];
    const Chart = function (_c: unknown, config: (typeof configs)[number]) {
      configs.push(config);
    } as unknown as Parameters<typeof pageMain>[1];
    const model = {
      costByTier: {
        days: ['2026-12-01', '2026-12-02'],
        series: [{ tier: 'cheap', color: '#000', usd: [0.1, 0.2], unpricedRuns: [0, 0] }],
        unpricedRuns: 0,
        omittedDays: 0,
        dayBudgetUsd: 0.25,
      },
      savings: { days: [], cost: [], counterfactual: [], cumulativeSavings: [], comparableRuns: [] },
      models: { pairs: [], mismatchedRuns: 0 },
      outcomes: { tiers: [], colors: [], ran: [], completed: [], verified: [], completedPct: [], verifiedPct: [] },
    };
    const el = (id: string) => ({
      textContent: id === 'tiergate-charts' ? JSON.stringify(model) : '',
      querySelector: () => el('x'),
      setAttribute: () => undefined,
      style: { height: '' },
    });
    pageMain({ getElementById: (id: string) => el(id), documentElement: el('root') } as any, Chart, {});
    const cost = configs[0]!;
    expect(cost.data.datasets.at(-1)).toMatchObject({
      type: 'line',
      label: 'daily budget $0.25',
      data: [0.25, 0.25],
      stack: 'budget',
      borderDash: [6, 4],
    });
    const label = cost.options.plugins.tooltip.callbacks.label as (c: {
      datasetIndex: number;
      dataIndex: number;
      raw: unknown;
    }) => string;
    expect(label({ datasetIndex: 1, dataIndex: 0, raw: 0.25 })).toBe('daily budget: $0.25');
    expect(label({ datasetIndex: 0, dataIndex: 0, raw: 0.1 })).toBe('cheap: $0.10');
  });
});
