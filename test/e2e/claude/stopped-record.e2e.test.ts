/**
 * The stopped child in the ledger (issue 33 item 5), against the real Claude Code binary (pinned 2.1.332) and a fake
 * Anthropic API on 127.0.0.1. As in child-stop.e2e.test.ts, an opus child's first response crosses a $0.001 session
 * budget under `budgets.action: "stop"`; here the fake child does not obey: told to stop, it calls Bash again, up to
 * three times, and each call is denied. The ledger then holds exactly one `stopped` decision, for that child (its
 * agent_id), whatever the number of denied calls; `tiergate budget` and `tiergate report` count it. The stop message
 * states the child's estimate. Command hooks only (the module made to fail to load).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { CHILD_MARKER, startFakeAnthropic, type FakeAnthropic, type Script } from '../support/fake-anthropic-api.js';
import { makeSandbox, runClaude, tiergatePluginCopy } from '../support/claude-run.js';
import { spawnSync } from 'node:child_process';
import { writeTiergateConfig } from '../support/sandbox.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { readSpool } from '../support/spool-read.js';

const root = join(import.meta.dirname, '../../..');
const bin = harnessBin('claude');
const CLI = join(root, 'dist/cli.js');
const runTiergate = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
const d = bin.ok ? describe : describe.skip;

/** Tool calls the disobedient child makes after it is told to stop. */
const AFTER_STOP = 3;

const script: Script = (req) => {
  if (req.role === 'child') {
    const denied = req.toolResults.filter((t) => t.is_error && /Stop now/.test(t.text)).length;
    if (denied >= AFTER_STOP) return { kind: 'text', text: 'Result: stopped by the budget' };
    return {
      kind: 'tool_use',
      name: 'Bash',
      input: { command: `echo tg-step-${req.toolResults.length}`, description: 'one step' },
    };
  }
  if (req.role === 'parent-after-tool') return { kind: 'text', text: 'All done.' };
  return {
    kind: 'tool_use',
    name: 'Agent',
    id: 'toolu_tg_only',
    input: {
      description: 'tg child',
      prompt: `${CHILD_MARKER} c1: run the steps and report.`,
      subagent_type: 'general-purpose',
      run_in_background: false,
      model: 'opus',
    },
  };
};

d('Claude Code: a stopped child is one stopped decision in the ledger', () => {
  let api: FakeAnthropic;
  let plugin = '';

  beforeAll(async () => {
    api = await startFakeAnthropic(script);
    plugin = tiergatePluginCopy(
      root,
      () => 'throw new Error("tiergate e2e: module off");\nexport function register(on) {}\n',
    );
  });
  afterAll(async () => {
    await api?.close();
  });

  it('three denied tool calls, one stopped record, counted by budget and report', async () => {
    const sb = makeSandbox();
    writeTiergateConfig(sb.tiergateHome, { budgets: { session: '0.001', action: 'stop' } });
    const res = await runClaude(bin.ok ? bin.bin : '', sb, api.url, [
      '-p',
      'TG-PARENT: delegate once.',
      '--output-format',
      'json',
      '--allowedTools',
      'Agent,Bash',
      '--model',
      'opus',
      '--plugin-dir',
      plugin,
    ]);
    expect(res.code, res.stderr).toBe(0);
    const child = api.requests.filter((r) => r.role === 'child');
    const denials = child.at(-1)!.toolResults.filter((t) => t.is_error);
    // The first request crossed the budget; every tool call after it was denied, and the API saw no tool run since.
    expect(denials).toHaveLength(AFTER_STOP);
    expect(child).toHaveLength(AFTER_STOP + 1);
    expect(denials[0]!.text).toMatch(
      /so far\. Stop now: .*No estimate of what a subagent like this one costs yet \(no finished subagent to go by\)\. \(To go on/,
    );

    const stopped = readSpool(sb.tiergateHome).filter(
      (r) => r.type === 'dispatch' && r.decision.reason === 'child-stopped',
    );
    expect(stopped).toHaveLength(1);

    const env = { TIERGATE_HOME: sb.tiergateHome, HOME: sb.home, TIERGATE_REFRESH: 'off' };
    const budget = runTiergate(['budget'], env);
    expect(budget.status, budget.stderr).toBe(0);
    expect(budget.stdout).toMatch(/stopped children: 1 today, 1 this month \(budgets\.action "stop"/);
    const report = JSON.parse(runTiergate(['report', '--json'], env).stdout) as { totals: { stopped?: number } };
    expect(report.totals.stopped).toBe(1);

    const db = openLedger(env);
    try {
      const rows = db
        .prepare(
          `SELECT o.kind AS kind, d.call_id AS call, o.completion_id AS joined FROM decisions o
           JOIN dispatches d ON d.id = o.dispatch_id WHERE o.kind = 'stopped'`,
        )
        .all<{ kind: string; call: string; joined: number | null }>();
      expect(rows).toHaveLength(1);
      // The child's agent_id is the one its completion carries.
      const agent = db
        .prepare("SELECT agent_id AS a FROM completions WHERE harness = 'claude' AND agent_id IS NOT NULL")
        .all<{ a: string }>()
        .map((r) => r.a);
      expect(agent).toHaveLength(1);
      expect(rows[0]).toEqual({ kind: 'stopped', call: `stopped:${agent[0]}`, joined: null });
    } finally {
      db.close();
    }
  });
});
