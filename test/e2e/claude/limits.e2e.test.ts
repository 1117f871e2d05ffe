/**
 * Fan-out limits against the real Claude Code binary (pinned 2.1.332) and a fake Anthropic API on 127.0.0.1 (issue 33
 * item 2): with limits.concurrentSubagents 2, an opus parent dispatches three opus children in one message (one batch);
 * two children run (the API sees two child conversations) and the third tool result is the limit's refusal, which
 * states the count, the limit and the money. Both ways the plugin runs:
 * - `command`: its command hooks decide (its hooks module made to fail to load, which Claude Code then skips);
 *   SubagentStop is the child's end that releases its place;
 * - `module`: the hooks module decides at agent.spawn (the command hooks stand down) and counts the children itself,
 *   from agent.spawn to each child's turn.complete (issue 33's Claude module limits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import {
  batchDispatchScript,
  CHILD_MARKER,
  childLabel,
  startFakeAnthropic,
  type FakeAnthropic,
} from '../support/fake-anthropic-api.js';
import { makeSandbox, pluginPaths, pluginPromptArgs, runClaude } from '../support/claude-run.js';
import { writeTiergateConfig } from '../support/sandbox.js';
import { runObserver } from '../../../src/collect/drain.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { openLedger } from '../../../src/observer/ledger/open.js';

const bin = harnessBin('claude');
const d = bin.ok ? describe : describe.skip;

/** The ledger's decisions as (who read the parent model, kind): `agent.spawn` is the hooks module's own reading. */
function decided(tiergateHome: string, home: string): string[] {
  const env = { TIERGATE_HOME: tiergateHome, HOME: home, TIERGATE_REFRESH: 'off' };
  const db = openLedger(env);
  try {
    runObserver(env, loadPricer(env, null), db);
    return db
      .prepare(
        `SELECT d.parent_model_source || ' ' || o.kind AS k FROM decisions o JOIN dispatches d ON d.id = o.dispatch_id
         ORDER BY k`,
      )
      .all<{ k: string }>()
      .map((r) => r.k);
  } finally {
    db.close();
  }
}

const call = (n: number) => ({
  id: `toolu_tg_fan${n}`,
  input: {
    description: `tg child ${n}`,
    prompt: `${CHILD_MARKER} c${n}: do the task and report.`,
    subagent_type: 'general-purpose',
    model: 'opus',
  },
});

const LIMIT_TEXT =
  /tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish, then dispatch this one again\. Money: \$0\.0000 spent on this session's subagents so far \(running ones at their estimate\); no budget set\./;

d('Claude Code: fan-out limits', () => {
  let api: FakeAnthropic;
  let plugins: Record<'command' | 'module', string>;

  beforeAll(async () => {
    api = await startFakeAnthropic(batchDispatchScript([call(1), call(2), call(3)]));
    plugins = pluginPaths();
  });
  afterAll(async () => {
    await api?.close();
  });

  async function run(path: 'command' | 'module', limits: Record<string, number> | null) {
    const sb = makeSandbox();
    writeTiergateConfig(sb.tiergateHome, limits ? { limits } : undefined);
    api.requests.length = 0;
    const res = await runClaude(
      bin.ok ? bin.bin : '',
      sb,
      api.url,
      pluginPromptArgs('TG-PARENT: delegate three at once.', plugins[path]),
    );
    expect(res.code, res.stderr).toBe(0);
    const children = [...new Set(api.requests.filter((r) => r.role === 'child').map((r) => childLabel(r)))];
    // Every later parent request repeats the earlier tool results: one per call id.
    const results = new Map(api.requests.flatMap((r) => r.toolResults).map((t) => [t.tool_use_id, t]));
    return {
      children,
      errors: [...results.values()].filter((t) => t.is_error),
      kinds: decided(sb.tiergateHome, sb.home),
    };
  }

  it('command hooks, concurrentSubagents 2: three in one batch run two children and deny the third, stating the limit and the money', async () => {
    const { children, errors } = await run('command', { concurrentSubagents: 2 });
    expect(children).toHaveLength(2);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.text).toMatch(LIMIT_TEXT);
    // The refused one is the one whose child never ran.
    expect(children).not.toContain(errors[0]!.tool_use_id.replace('toolu_tg_fan', 'c'));
  });

  it('hooks module, concurrentSubagents 2: the module runs two children and refuses the third, stating the limit and the money', async () => {
    const { children, errors, kinds } = await run('module', { concurrentSubagents: 2 });
    expect(children).toHaveLength(2);
    // The module decided all three (the command hooks stood down).
    expect(kinds).toEqual(['agent.spawn allow', 'agent.spawn allow', 'agent.spawn limit-deny']);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.text).toMatch(new RegExp(`Subagent spawn denied by a plugin: ${LIMIT_TEXT.source}`));
    expect(children).not.toContain(errors[0]!.tool_use_id.replace('toolu_tg_fan', 'c'));
  });

  for (const path of ['command', 'module'] as const)
    it(`${path === 'module' ? 'hooks module' : 'command hooks'}: without a limit all three run`, async () => {
      const { children, errors } = await run(path, null);
      expect(children.sort()).toEqual(['c1', 'c2', 'c3']);
      expect(errors).toEqual([]);
    });
});
