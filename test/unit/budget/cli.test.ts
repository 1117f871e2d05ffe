/**
 * The budgets around the dispatch, through the built CLI (dist/cli.js): `tiergate budget` (text and --json),
 * `config check` listing them, `explain` deciding with them, `doctor` flagging one exceeded today, and `report`'s
 * budget lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompletionObservation } from '../../../src/contracts/observation.js';
import { noteSpend } from '../../../src/observer/spend-record.js';

const root = join(import.meta.dirname, '../../..');
const USD = 1_000_000_000_000n;

function home(budgets: Record<string, unknown> | null) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-budget-cli-'));
  const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir, PATH: process.env.PATH ?? '', TIERGATE_PRICE_REFRESH: 'off', TZ: 'UTC' };
  mkdirSync(join(dir, 'tg', 'config'), { recursive: true });
  if (budgets) writeFileSync(join(dir, 'tg', 'config', 'config.json'), JSON.stringify({ budgets }));
  const cli = (...args: string[]) => spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
  return { dir, env, cli };
}

/** A child of session `s` that cost `pico` (priced by a stand-in pricer), counted as the completion hooks count it. */
function spent(env: Record<string, string>, s: string, agentId: string, pico: bigint | null): void {
  const obs: CompletionObservation = {
    kind: 'completion', harness: 'claude', sessionId: s, callId: null, agentId, subagentType: null, servedModel: 'm',
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 }, status: 'ok',
    outcome: { result: null, verified: null, escalationFrom: null }, startedAt: null, endedAt: Date.now(), usageSource: 'test', dedupeKey: null,
  };
  noteSpend(obs, env, { pricer: { catalogVersion: 't', price: () => (pico === null ? null : { picoUsd: pico, catalogVersion: 't', modelId: 'm' }) } });
}

describe('tiergate budget', () => {
  it('each budget, the spend against it and what happens next (after draining: spooled spend is kept)', () => {
    const h = home({ session: '5', day: '0.01', month: '400', warnAt: 0.5 });
    spent(h.env, 'sess-a', 'a1', 2n * USD / 100n); // $0.02: the day is spent
    spent(h.env, 'sess-b', 'b1', null);
    const r = h.cli('budget');
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/^budgets \(USD of subagent spend; days and months in UTC\); past a budget: move subagents to the cheap tier; warn at 50%/);
    expect(out).toMatch(/day\s+\$0\.01\s+over\s+\$0\.0200 spent \(200%\), 1 unpriced; today: the next subagent moves to the cheap tier/);
    expect(out).toMatch(/month\s+\$400\s+warning\s+\$0\.0200 spent \(0%\), 1 unpriced; this month: dispatches proceed; unpriced children make the spend a lower bound/);
    expect(out).toMatch(/session\s+\$5\s+warning\s+\$0\.0000 spent \(0%\), 1 unpriced; session claude:sess-b/);
    expect(out).toMatch(/session\s+\$5\s+ok\s+\$0\.0200 spent \(0%\); session claude:sess-a: dispatches proceed/);
    const json = JSON.parse(h.cli('budget', '--json', '--no-drain').stdout) as { zone: string; rows: Array<Record<string, unknown>> };
    expect(json.zone).toBe('UTC');
    expect(json.rows.find((x) => x.kind === 'day')).toMatchObject({ limit: '0.01', spent: '0.02', unknown: 1, status: 'over', share: 2 });
  });

  it('no budget set: says how to set one', () => {
    const h = home(null);
    expect(h.cli('budget').stdout).toMatch(/^no budget set\. Add one to .*config\.json/);
  });

  it('action deny: the next subagent is refused', () => {
    const h = home({ session: '0.01', action: 'deny' });
    spent(h.env, 's', 'a1', USD);
    expect(h.cli('budget', '--no-drain').stdout).toMatch(/session\s+\$0\.01\s+over\s+\$1\.00 spent \(10000%\); session claude:s: the next subagent is refused/);
  });
});

describe('config check, explain, doctor, report', () => {
  it('config check lists the budgets', () => {
    const h = home({ session: '5', day: '40', sessionTotal: '20', action: 'deny' });
    const r = h.cli('config', 'check');
    expect(r.stdout).toContain('budgets: session $5, session total $20, day $40; past a budget: deny; warn at 80% (session total only where the harness reports it: Claude Code\'s hooks module, OpenCode and pi)');
    expect(home(null).cli('config', 'check').stdout).toContain('budgets: none set');
  });

  it('explain decides with today\'s spend and shows the budget state', () => {
    const h = home({ day: '0.01' });
    spent(h.env, 's', 'a1', USD);
    const r = h.cli('explain', '--parent', 'claude-opus-5-5', '--child', 'opus');
    expect(r.stdout).toMatch(/^decision: CORRECT \(budget-downshifted\)/);
    expect(r.stdout).toMatch(/\n {2}set model = "haiku"\n/);
    expect(r.stdout).toMatch(/\nbudget: over \(over the daily budget of \$0\.01 \(\$1\.00 spent\)\)\n {2}day\s+\$0\.01\s+over\s+\$1\.00 spent\n/);
    const under = home({ day: '100' });
    expect(under.cli('explain', '--parent', 'claude-opus-5-5', '--child', 'opus').stdout).toMatch(/^decision: ALLOW \(within-ceiling\)[\s\S]*\nbudget: ok \(within every budget\)/);
  });

  it('doctor warns about a budget exceeded today, and is quiet about one that is not', () => {
    const h = home({ day: '0.01', month: '100' });
    spent(h.env, 's', 'a1', USD);
    const doc = JSON.parse(h.cli('doctor', '--json').stdout) as { checks: Array<{ section: string; name: string; status: string; detail: string }> };
    const budget = doc.checks.filter((c) => c.section === 'budget');
    expect(budget.find((c) => c.name === 'day budget')).toMatchObject({ status: 'warn' });
    expect(budget.find((c) => c.name === 'day budget')!.detail).toMatch(/^exceeded today: \$1\.00 of \$0\.01; the next subagent moves to the cheap tier \(raise budgets\.day to go on\)/);
    expect(budget.find((c) => c.name === 'month budget')).toMatchObject({ status: 'ok' });
  });
});
