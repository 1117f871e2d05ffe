/**
 * Fan-out limits against the real Claude Code binary (pinned 2.1.328) and a fake Anthropic API on 127.0.0.1 (issue 33
 * item 2): with limits.concurrentSubagents 2, an opus parent dispatches three opus children in one message (one batch);
 * two children run (the API sees two child conversations) and the third tool result is the limit's refusal, which
 * states the count, the limit and the money. The plugin's command hooks decide (its hooks module made to fail to load,
 * which Claude Code then skips): SubagentStop is the child's end that releases its place.
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
import { commandHooksPlugin, makeSandbox, pluginPromptArgs, runClaude } from '../support/claude-run.js';
import { writeTiergateConfig } from '../support/sandbox.js';

const bin = harnessBin('claude');
const d = bin.ok ? describe : describe.skip;

const call = (n: number) => ({
  id: `toolu_tg_fan${n}`,
  input: {
    description: `tg child ${n}`,
    prompt: `${CHILD_MARKER} c${n}: do the task and report.`,
    subagent_type: 'general-purpose',
    model: 'opus',
  },
});

d('Claude Code: fan-out limits', () => {
  let api: FakeAnthropic;
  let plugin = '';

  beforeAll(async () => {
    api = await startFakeAnthropic(batchDispatchScript([call(1), call(2), call(3)]));
    plugin = commandHooksPlugin();
  });
  afterAll(async () => {
    await api?.close();
  });

  async function run(limits: Record<string, number> | null) {
    const sb = makeSandbox();
    writeTiergateConfig(sb.tiergateHome, limits ? { limits } : undefined);
    api.requests.length = 0;
    const res = await runClaude(
      bin.ok ? bin.bin : '',
      sb,
      api.url,
      pluginPromptArgs('TG-PARENT: delegate three at once.', plugin),
    );
    expect(res.code, res.stderr).toBe(0);
    const children = [...new Set(api.requests.filter((r) => r.role === 'child').map((r) => childLabel(r)))];
    // Every later parent request repeats the earlier tool results: one per call id.
    const results = new Map(api.requests.flatMap((r) => r.toolResults).map((t) => [t.tool_use_id, t]));
    return { children, errors: [...results.values()].filter((t) => t.is_error) };
  }

  it('concurrentSubagents 2: three in one batch run two children and deny the third, stating the limit and the money', async () => {
    const { children, errors } = await run({ concurrentSubagents: 2 });
    expect(children).toHaveLength(2);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.text).toMatch(
      /tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish, then dispatch this one again\. Money: \$0\.0000 spent on this session's subagents so far \(running ones at their estimate\); no budget set\./,
    );
    // The refused one is the one whose child never ran.
    const refused = errors[0]!.tool_use_id.replace('toolu_tg_fan', 'c');
    expect(children).not.toContain(refused);
  });

  it('without a limit all three run', async () => {
    const { children, errors } = await run(null);
    expect(children.sort()).toEqual(['c1', 'c2', 'c3']);
    expect(errors).toEqual([]);
  });
});
