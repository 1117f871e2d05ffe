/**
 * Fan-out limits on Claude Code's hooks-module path (issue 33 item 3), against the real binary (pinned 2.1.332) and a
 * fake Anthropic API on 127.0.0.1. The same batch as limits.e2e.test.ts (three opus children dispatched in one message
 * under limits.concurrentSubagents 2), with the plugin's hooks module loaded: the module decides at agent.spawn (the
 * command hooks stand down) and counts the children itself, from agent.spawn to each child's turn.complete. Two
 * children run (the API sees two child conversations); the third spawn is refused with the limit and the money.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import {
  batchDispatchScript,
  CHILD_MARKER,
  childLabel,
  startFakeAnthropic,
  type FakeAnthropic,
} from '../support/fake-anthropic-api.js';
import { makeSandbox, runClaude, tiergatePluginCopy } from '../support/claude-run.js';
import { writeTiergateConfig } from '../support/sandbox.js';
import { runObserver } from '../../../src/collect/drain.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { openLedger } from '../../../src/observer/ledger/open.js';

const root = join(import.meta.dirname, '../../..');
const bin = harnessBin('claude');

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
const d = bin.ok ? describe : describe.skip;

const call = (n: number) => ({
  id: `toolu_tg_mfan${n}`,
  input: {
    description: `tg child ${n}`,
    prompt: `${CHILD_MARKER} c${n}: do the task and report.`,
    subagent_type: 'general-purpose',
    model: 'opus',
  },
});

d('Claude Code hooks module: fan-out limits', () => {
  let api: FakeAnthropic;
  let plugin = '';

  beforeAll(async () => {
    api = await startFakeAnthropic(batchDispatchScript([call(1), call(2), call(3)]));
    plugin = tiergatePluginCopy(root);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function run(limits: Record<string, number> | null) {
    const sb = makeSandbox();
    writeTiergateConfig(sb.tiergateHome, limits ? { limits } : undefined);
    api.requests.length = 0;
    const res = await runClaude(bin.ok ? bin.bin : '', sb, api.url, [
      '-p',
      'TG-PARENT: delegate three at once.',
      '--output-format',
      'json',
      '--allowedTools',
      'Agent',
      '--model',
      'opus',
      '--plugin-dir',
      plugin,
    ]);
    expect(res.code, res.stderr).toBe(0);
    const children = [...new Set(api.requests.filter((r) => r.role === 'child').map((r) => childLabel(r)))];
    const results = new Map(api.requests.flatMap((r) => r.toolResults).map((t) => [t.tool_use_id, t]));
    return {
      children,
      errors: [...results.values()].filter((t) => t.is_error),
      kinds: decided(sb.tiergateHome, sb.home),
    };
  }

  it('concurrentSubagents 2: the module runs two children and refuses the third, stating the limit and the money', async () => {
    const { children, errors, kinds } = await run({ concurrentSubagents: 2 });
    expect(children).toHaveLength(2);
    // The module decided all three (the command hooks stood down).
    expect(kinds).toEqual(['agent.spawn allow', 'agent.spawn allow', 'agent.spawn limit-deny']);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.text).toMatch(
      /Subagent spawn denied by a plugin: tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish, then dispatch this one again\. Money: \$0\.0000 spent on this session's subagents so far \(running ones at their estimate\); no budget set\./,
    );
    const refused = errors[0]!.tool_use_id.replace('toolu_tg_mfan', 'c');
    expect(children).not.toContain(refused);
  });

  it('without a limit all three run', async () => {
    const { children, errors } = await run(null);
    expect(children.sort()).toEqual(['c1', 'c2', 'c3']);
    expect(errors).toEqual([]);
  });
});
