/**
 * Spend budgets against the real Claude Code binary (pinned 2.1.328) and a fake Anthropic API on 127.0.0.1.
 *
 * An opus parent dispatches two opus children one after the other in one session (within the ceiling: the ceiling alone
 * changes nothing). The first child's reported usage (1001+ input, 21+ output, cache read and write tokens at opus's
 * list price, about $0.006) crosses a session budget of $0.001: its SubagentStop counts it in the spend summary before
 * the parent's next request, so the second dispatch is moved to haiku (the API sees claude-haiku-5-5) or, with action
 * deny, refused (the parent model reads the reason in the tool result). Under the budget both children run on opus.
 *
 * Both paths: the plugin's command hooks alone (its hooks module made to fail to load, which Claude Code 2.1.328 then
 * skips) and the hooks module, which decides at agent.spawn and reads the same summary through $.fs.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { startFakeAnthropic, twoInSequence, type FakeAnthropic } from '../support/fake-anthropic-api.js';
import { makeSandbox, pluginPaths, pluginPromptArgs, runClaude, type ClaudeSandbox } from '../support/claude-run.js';
import { tiergateEnv, writeTiergateConfig } from '../support/sandbox.js';
import { openLedger } from '../../../src/observer/ledger/open.js';

const root = join(import.meta.dirname, '../../..');
const bin = harnessBin('claude');
const d = bin.ok ? describe : describe.skip;

function dispatchRows(sb: ClaudeSandbox): Array<{
  call_id: string;
  action: string;
  reason: string;
  effective_model: string | null;
  parent_model_source: string;
}> {
  const r = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'report', '--json'], {
    cwd: sb.project,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: sb.home,
      CLAUDE_CONFIG_DIR: sb.configDir,
      ...tiergateEnv(sb.tiergateHome),
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0); // drains the spool into the ledger
  const db = openLedger({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.home });
  try {
    return db
      .prepare('SELECT call_id, action, reason, effective_model, parent_model_source FROM dispatches ORDER BY at')
      .all();
  } finally {
    db.close();
  }
}

d('Claude Code: spend budgets', () => {
  let api: FakeAnthropic;
  const claude = bin.ok ? bin.bin : '';
  let plugins: Record<'command' | 'module', string>;

  beforeAll(async () => {
    api = await startFakeAnthropic(twoInSequence());
    plugins = pluginPaths();
  });
  afterAll(async () => {
    await api?.close();
  });

  async function run(path: 'command' | 'module', budgets: Record<string, unknown> | null) {
    const sb = makeSandbox();
    writeTiergateConfig(sb.tiergateHome, budgets ? { budgets } : undefined);
    api.requests.length = 0;
    const res = await runClaude(claude, sb, api.url, pluginPromptArgs('TG-PARENT: delegate twice.', plugins[path]));
    expect(res.code, res.stderr).toBe(0);
    const children = api.requests.filter((r) => r.role === 'child').map((r) => r.model);
    const errors = api.requests
      .flatMap((r) => r.toolResults)
      .filter((t) => t.is_error)
      .map((t) => t.text);
    return { sb, children, errors, rows: dispatchRows(sb) };
  }

  it("sessionTotal: the module checks Claude Code's own figure for the whole session (the parent's first turn is past $0.001), the command hooks have none", async () => {
    const mod = await run('module', { sessionTotal: '0.001' });
    expect(mod.children).toEqual(['claude-haiku-5-5', 'claude-haiku-5-5']);
    expect(mod.rows.map((r) => r.reason)).toEqual(['budget-downshifted', 'budget-downshifted']);
    const cmd = await run('command', { sessionTotal: '0.001' });
    expect(cmd.children).toEqual(['claude-opus-5-5', 'claude-opus-5-5']);
    expect(cmd.rows.map((r) => r.reason)).toEqual(['within-ceiling', 'within-ceiling']);
  });

  for (const path of ['command', 'module'] as const) {
    const decidedBy = path === 'command' ? /^transcript-tail/ : /^agent\.spawn$/;

    it(`${path} path: the first child crosses the session budget, the second runs on haiku`, async () => {
      const { children, rows } = await run(path, { session: '0.001' });
      expect(children).toEqual(['claude-opus-5-5', 'claude-haiku-5-5']);
      expect(rows.map((r) => [r.call_id, r.action, r.reason, r.effective_model])).toEqual([
        ['toolu_tg_first', 'allow', 'within-ceiling', 'opus'],
        ['toolu_tg_second', 'correct', 'budget-downshifted', 'haiku'],
      ]);
      for (const r of rows) expect(r.parent_model_source).toMatch(decidedBy);
    });

    it(`${path} path: with action deny the second is refused, and the model reads the budget and the spend`, async () => {
      const { children, errors, rows } = await run(path, { session: '0.001', action: 'deny' });
      expect(children).toEqual(['claude-opus-5-5']);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /tiergate: the session budget of \$0\.001 \(\$0\.0\d+ spent\) is spent; no more subagents run under it\. To go on, raise budgets\.session/,
      );
      expect(rows.find((r) => r.call_id === 'toolu_tg_second')).toMatchObject({
        action: 'deny',
        reason: 'budget-denied',
      });
    });

    it(`${path} path: under the budget nothing changes`, async () => {
      const { children, rows } = await run(path, { session: '100', day: '100', month: '100' });
      expect(children).toEqual(['claude-opus-5-5', 'claude-opus-5-5']);
      expect(rows.map((r) => r.reason)).toEqual(['within-ceiling', 'within-ceiling']);
    });
  }
});
