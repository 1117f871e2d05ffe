/**
 * `budgets.action: "stop"` against the real Claude Code binary (pinned 2.1.328) and a fake Anthropic API on 127.0.0.1
 * (issue 33). An opus parent dispatches one child; the child's first response carries usage (about $0.006 at opus's
 * list price) that crosses a $0.001 session budget, and a Bash call. The fake child behaves like a model that obeys:
 * told to stop, it reports; otherwise it keeps calling Bash, six requests in all. With `stop`, the child's next tool
 * call is denied from its own PreToolUse (it carries agent_id; the spend is read from the child's transcript), so the
 * child makes exactly one request after the crossing; with `deny` (the control) it runs on. The parent's second
 * dispatch is refused naming the budget either way.
 *
 * Both paths: the command hooks alone (module made to fail to load) and with the hooks module loaded, which arms the
 * command hook for every tool call when the policy says stop (TIERGATE_CHILD_STOP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { startFakeAnthropic, twoInSequence, type FakeAnthropic, type Script } from '../support/fake-anthropic-api.js';
import { makeSandbox, pluginPaths, pluginPromptArgs, runClaude } from '../support/claude-run.js';
import { writeTiergateConfig } from '../support/sandbox.js';

const bin = harnessBin('claude');
const d = bin.ok ? describe : describe.skip;

/** Child requests the fake child makes when nothing stops it. */
const CHILD_STEPS = 6;
const STOP_TEXT = /Stop now/;

const child: Script = (req) => {
  const last = req.toolResults.at(-1);
  if (last?.is_error && STOP_TEXT.test(last.text)) return { kind: 'text', text: 'Result: stopped by the budget' };
  if (req.toolResults.length >= CHILD_STEPS - 1) return { kind: 'text', text: 'Result: done' };
  return {
    kind: 'tool_use',
    name: 'Bash',
    input: { command: `echo tg-step-${req.toolResults.length}`, description: 'one step' },
  };
};
const script = twoInSequence(child, 'run the steps and report.');

d('Claude Code: budgets.action stop stops a running child', () => {
  let api: FakeAnthropic;
  const claude = bin.ok ? bin.bin : '';
  let plugins: Record<'command' | 'module', string>;

  beforeAll(async () => {
    api = await startFakeAnthropic(script);
    plugins = pluginPaths();
  });
  afterAll(async () => {
    await api?.close();
  });

  async function run(path: 'command' | 'module', action: 'stop' | 'deny') {
    const sb = makeSandbox();
    writeTiergateConfig(sb.tiergateHome, { budgets: { session: '0.001', action } });
    api.requests.length = 0;
    const res = await runClaude(
      claude,
      sb,
      api.url,
      pluginPromptArgs('TG-PARENT: delegate twice.', plugins[path], 'Agent,Bash'),
    );
    expect(res.code, res.stderr).toBe(0);
    const child = api.requests.filter((r) => r.role === 'child');
    const childErrors = child.flatMap((r) => r.toolResults).filter((t) => t.is_error);
    const parentErrors = api.requests
      .filter((r) => r.role === 'parent-after-tool')
      .at(-1)
      ?.toolResults.filter((t) => t.is_error)
      .map((t) => t.text);
    return { child, childErrors, parentErrors: parentErrors ?? [] };
  }

  for (const path of ['command', 'module'] as const) {
    it(`${path} path: the child crossing the budget makes one more request, told to stop with the money`, async () => {
      const { child, childErrors, parentErrors } = await run(path, 'stop');
      // The first child request's usage crossed the budget; one request after it, the one that reads the deny.
      expect(child.length).toBe(2);
      expect(childErrors).toHaveLength(1);
      expect(childErrors[0]!.text).toMatch(
        /tiergate: the session budget of \$0\.001 \(\$0\.0\d+ spent[^)]*\) is spent, \$0\.0\d+ of it by this subagent so far\. Stop now/,
      );
      expect(parentErrors).toHaveLength(1);
      expect(parentErrors[0]).toMatch(
        /the session budget of \$0\.001 \(\$0\.0\d+ spent[^)]*\) is spent; no more subagents/,
      );
    });
  }

  it('control: with action deny the running child is not stopped (all its steps run)', async () => {
    const { child, childErrors, parentErrors } = await run('command', 'deny');
    expect(child.length).toBe(CHILD_STEPS);
    expect(childErrors).toEqual([]);
    expect(parentErrors).toHaveLength(1);
  });
});
