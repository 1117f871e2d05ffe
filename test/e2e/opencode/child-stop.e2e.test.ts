/**
 * `budgets.action: "stop"` inside the real opencode 1.18.33 (tiergate's plugin in process) against the fake chat API on
 * 127.0.0.1 (issue 33). The parent dispatches the `worker` agent (fake/parent); the child's first response carries
 * usage (1500 input, 600 cached, 210 output: $0.0078 at fake/parent's price) that crosses a $0.005 session budget, and
 * a bash call. The fake child obeys a stop and otherwise keeps calling bash, six requests in all. With `stop` the
 * plugin (which follows child sessions and their messages through its `event` callback) stops the child at its next
 * model request (`chat.params`), since OpenCode reports the crossing response's usage only after its bash call ran;
 * the test counts the child's requests after the crossing. With `deny` (the control) the child runs all six.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  contentText,
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
} from '../support/fake-chat-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { makeSandbox, runOpencode } from '../support/opencode-run.js';
import { decisionRecord } from '../support/decision-record.js';

const root = join(import.meta.dirname, '../../..');
const plugin = join(root, 'dist/opencode.js');
const bin = harnessBin('opencode');
const PRICES = { 'fake/parent': { input: '3', output: '15', cacheRead: '0.3', cacheWrite5m: '3.75' } };
const AGENTS = {
  worker: {
    mode: 'subagent',
    description: 'A worker (fake/parent)',
    model: 'fake/parent',
    prompt: 'You are a worker.',
  },
};
const CHILD_STEPS = 6;
const isChild = (r: RecordedRequest) => r.tools.length > 0 && !r.tools.includes('task');
const toolTexts = (r: RecordedRequest) =>
  r.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content));

const script = (req: RecordedRequest): Reply => {
  if (req.tools.length === 0) return { text: 'Demo title', usage: { prompt: 50, completion: 5 } };
  if (isChild(req)) {
    const results = toolTexts(req);
    if (/Stop now/.test(results.at(-1) ?? ''))
      return { text: 'Result: stopped by the budget', usage: { prompt: 100, completion: 10 } };
    if (results.length >= CHILD_STEPS - 1) return { text: 'Result: done', usage: { prompt: 100, completion: 10 } };
    return {
      toolCalls: [
        {
          name: 'bash',
          id: `call_step_${results.length}`,
          args: { command: `echo tg-step-${results.length}`, description: 'one step' },
        },
      ],
      usage: { prompt: 2100, completion: 210, cached: 600 },
    };
  }
  const results = toolTexts(req).length;
  if (results === 0)
    return {
      toolCalls: [
        {
          name: 'task',
          id: 'call_first',
          args: { description: 'steps', prompt: 'CHILD_TASK steps', subagent_type: 'worker' },
        },
      ],
      usage: { prompt: 300, completion: 30 },
    };
  return { text: 'PARENT_FINAL', usage: { prompt: 300, completion: 30 } };
};

describe.skipIf(!bin.ok)('OpenCode 1.18.33: budgets.action stop stops a running child (real binary)', () => {
  const binPath = bin.ok ? bin.bin : '';
  const apis: FakeChatApi[] = [];
  afterAll(async () => {
    await Promise.all(apis.map((a) => a.close()));
  });

  async function run(action: 'stop' | 'deny') {
    const api = await startFakeChatApi(script);
    apis.push(api);
    const sb = makeSandbox({
      baseURL: api.baseURL,
      pluginFile: plugin,
      agents: AGENTS,
      tiergateConfig: { priceOverrides: PRICES, budgets: { session: '0.005', action } },
    });
    const res = await runOpencode(binPath, sb, 'PARENT_GO: delegate');
    expect(res.code, res.stderr.slice(-2000)).toBe(0);
    const parent = api.requests.filter((r) => r.tools.includes('task')).at(-1)!;
    // Issue 33 item 5: one `stopped` decision in the ledger for the stopped child, none without a stop.
    const stopped = decisionRecord({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.root }).filter(
      (d) => d.kind === 'stopped',
    );
    return { child: api.requests.filter(isChild), parentResults: toolTexts(parent), stopped };
  }

  it('the child crossing the budget makes no further request; the parent reads why, with the money', async () => {
    const { child, parentResults, stopped } = await run('stop');
    expect(stopped).toHaveLength(1);
    // 1.18.33 runs the crossing response's own tool call before it reports that response's usage (child-stop.ts), so
    // the stop holds at the next request, which is never made.
    expect(child).toHaveLength(1);
    expect(parentResults[0]).toMatch(
      /tiergate: this subagent was stopped before its next model request: the session budget of \$0\.005 \(\$0\.0078 spent\) is spent, \$0\.0078 of it by this subagent so far\./,
    );
  });

  it('control: with action deny the running child is not stopped (all its steps run)', async () => {
    const { child, stopped } = await run('deny');
    expect(stopped).toEqual([]);
    expect(child).toHaveLength(CHILD_STEPS);
  });
});
