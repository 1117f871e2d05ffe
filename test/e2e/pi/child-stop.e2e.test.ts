/**
 * `budgets.action: "stop"` inside the real pi 0.73.1 (pi's example `subagent` tool; tiergate installed the pi way, so
 * each child `pi` process loads it) against the fake chat API on 127.0.0.1 (issue 33). The parent dispatches the
 * `worker` agent (fake/parent); the child's first response carries usage (1500 input, 600 cached, 210 output: $0.0078
 * at fake/parent's price) that crosses a $0.005 session budget, and a bash call. The fake child obeys a stop and
 * otherwise keeps calling bash, six requests in all. With `stop` the child's extension denies that bash call (its
 * spend from its own message_end, the parent's session from the environment), so the child makes exactly one request
 * after the crossing; with `deny` (the control) it runs all six. The parent's second dispatch is refused either way.
 */
import { describe, expect, it } from 'vitest';
import { toolTexts, type RecordedRequest, type Reply } from '../support/fake-chat-api.js';
import { fakePrices } from '../support/fake-prices.js';
import { harnessBin } from '../support/harness-bin.js';
import { decisionRecord } from '../support/decision-record.js';
import { runPiSession } from '../support/pi-run.js';
import { piLines, type PiLine } from '../support/pi-lines.js';

const bin = harnessBin('pi');
const CHILD_STEPS = 6;
const isChild = (req: RecordedRequest) => !req.tools.includes('subagent');

const script = (req: RecordedRequest): Reply => {
  if (isChild(req)) {
    const results = toolTexts(req);
    if (/Stop now/.test(results.at(-1) ?? ''))
      return { text: 'Result: stopped by the budget', usage: { prompt: 100, completion: 10 } };
    if (results.length >= CHILD_STEPS - 1) return { text: 'Result: done', usage: { prompt: 100, completion: 10 } };
    return {
      toolCalls: [
        { name: 'bash', id: `call_step_${results.length}`, args: { command: `echo tg-step-${results.length}` } },
      ],
      usage: { prompt: 2100, completion: 210, cached: 600 },
    };
  }
  const results = toolTexts(req).length;
  if (results < 2)
    return {
      toolCalls: [
        { name: 'subagent', id: `call_${results}`, args: { agent: 'worker', task: `CHILD_TASK ${results}` } },
      ],
      usage: { prompt: 300, completion: 30 },
    };
  return { text: 'PARENT_FINAL', usage: { prompt: 300, completion: 30 } };
};

async function run(action: 'stop' | 'deny', line?: PiLine) {
  const { api, sb } = await runPiSession(
    line?.bin ?? (bin.ok ? bin.bin : ''),
    {
      respond: script,
      agents: { worker: 'fake/parent' },
      tiergateConfig: { priceOverrides: fakePrices('parent'), budgets: { session: '0.005', action } },
      prompt: 'PARENT_GO: delegate twice',
    },
    line,
  );
  const child = api.requests.filter(isChild);
  const parentResults = toolTexts(api.requests.filter((r) => !isChild(r)).at(-1)!);
  // Issue 33 item 5: one `stopped` decision in the ledger for the stopped child, none without a stop.
  const stopped = decisionRecord({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.root }, { withAgent: true }).filter(
    (d) => d.kind === 'stopped',
  );
  return { child, parentResults, stopped };
}

describe.skipIf(!bin.ok)('pi 0.73.1: budgets.action stop stops a running child (real binary)', () => {
  it('the child crossing the budget makes one more request, told to stop with the money', async () => {
    const { child, parentResults, stopped } = await run('stop');
    expect(child).toHaveLength(2);
    // One record, naming the agent the child process read from its argv (piChildAgent).
    expect(stopped.map((d) => d.agent)).toEqual(['worker']);
    expect(toolTexts(child[1]!).at(-1)).toMatch(
      /^tiergate: the session budget of \$0\.005 \(\$0\.0078 spent\) is spent, \$0\.0078 of it by this subagent so far\. Stop now/,
    );
    expect(parentResults[1]).toMatch(
      /^tiergate: the session budget of \$0\.005 \(\$0\.0\d+ spent\) is spent; no more subagents/,
    );
  });

  it('control: with action deny the running child is not stopped (all its steps run)', async () => {
    const { child, parentResults, stopped } = await run('deny');
    expect(stopped).toEqual([]);
    expect(child).toHaveLength(CHILD_STEPS);
    expect(parentResults[1]).toMatch(/no more subagents run under it/);
  });
});

// pi 1.6.0 (Node 22) too: its example tool passes the agent's prompt file the same way (pi 0.73.1 is the suite above).
for (const line of piLines().filter((l) => !l.label.startsWith('pi 0.'))) {
  describe.skipIf(!line.ok)(`${line.label}: the stopped child's record names its agent (real binary)`, () => {
    it('one stopped decision, agent worker, read from the child pi process argv', async () => {
      const { child, stopped } = await run('stop', line);
      expect(child).toHaveLength(2);
      expect(stopped.map((d) => d.agent)).toEqual(['worker']);
    });
  });
}
