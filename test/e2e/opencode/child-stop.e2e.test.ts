/**
 * `budgets.action: "stop"` inside the real opencode 1.18.33 (tiergate's plugin in process) against the fake chat API on
 * 127.0.0.1 (issue 33). The parent dispatches the `worker` agent (fake/parent); the child's first response carries
 * usage (1500 input, 600 cached, 210 output: $0.0078 at fake/parent's price) that crosses a $0.005 session budget, and
 * a bash call. The fake child obeys a stop and otherwise keeps calling bash, six requests in all. With `stop` the
 * plugin (which follows child sessions and their messages through its `event` callback) stops the child at its next
 * model request (`chat.params`), since OpenCode reports the crossing response's usage only after its bash call ran;
 * the test counts the child's requests after the crossing. With `deny` (the control) the child runs all six.
 */
import { describe, expect, it } from 'vitest';
import { toolTexts, type RecordedRequest, type Reply } from '../support/fake-chat-api.js';
import { fakePrices } from '../support/fake-prices.js';
import { harnessBin } from '../support/harness-bin.js';
import { decisionRecord } from '../support/decision-record.js';
import {
  isOpencodeChild as isChild,
  lastParentRequest,
  runOpencodeSession,
  TITLE_REPLY,
} from '../support/opencode-run.js';

const bin = harnessBin('opencode');
const CHILD_STEPS = 6;

const script = (req: RecordedRequest): Reply => {
  if (req.tools.length === 0) return TITLE_REPLY;
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
  async function run(action: 'stop' | 'deny') {
    const { api, sb } = await runOpencodeSession(bin.ok ? bin.bin : '', {
      respond: script,
      tiergateConfig: { priceOverrides: fakePrices('parent'), budgets: { session: '0.005', action } },
      prompt: 'PARENT_GO: delegate',
    });
    // Issue 33 item 5: one `stopped` decision in the ledger for the stopped child, none without a stop.
    const stopped = decisionRecord({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.root }).filter(
      (d) => d.kind === 'stopped',
    );
    return { child: api.requests.filter(isChild), parentResults: toolTexts(lastParentRequest(api.requests)), stopped };
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
