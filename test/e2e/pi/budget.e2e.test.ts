/**
 * Spend budgets inside the real pi 0.73.1 (pi's example `subagent` tool, tiergate's extension loaded in process)
 * against the fake chat API on 127.0.0.1. The parent (fake/parent) dispatches the `worker` agent (also fake/parent:
 * within the ceiling) twice, one after the other. The first child's reported usage (1500 input, 600 cached, 210
 * output: $0.00783 at fake/parent's price) crosses a session budget of $0.005; tiergate's tool_result handler counts it
 * in the spend summary before the parent's next tool_call, which then switches the second dispatch to the cheap tier
 * agent (the API sees `small`) or, with action deny, blocks it (the parent model reads the reason). Under the budget
 * both children run on `parent`.
 */
import { describe, expect, it } from 'vitest';
import { childDone, lastText, toolTexts, type RecordedRequest, type Reply } from '../support/fake-chat-api.js';
import { fakePrices } from '../support/fake-prices.js';
import { harnessBin } from '../support/harness-bin.js';
import { runPiSession } from '../support/pi-run.js';
import { spooledDecisions } from '../support/spool-read.js';

const bin = harnessBin('pi');

const AGENTS = { worker: 'fake/parent', 'tiergate-cheap': 'fake/small' };

const twoInSequence = (req: RecordedRequest): Reply => {
  if (!req.tools.includes('subagent')) return childDone(req, { prompt: 2100, completion: 210, cached: 600 });
  const results = req.messages.filter((m) => m.role === 'tool').length;
  if (results === 0)
    return {
      toolCalls: [{ name: 'subagent', id: 'call_first', args: { agent: 'worker', task: 'CHILD_TASK one' } }],
      usage: { prompt: 3000, completion: 300 },
    };
  if (results === 1)
    return {
      toolCalls: [{ name: 'subagent', id: 'call_second', args: { agent: 'worker', task: 'CHILD_TASK two' } }],
      usage: { prompt: 3000, completion: 300 },
    };
  return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300 } };
};

describe.skipIf(!bin.ok)('pi 0.73.1: spend budgets (real binary, pi example subagent tool)', () => {
  async function run(budgets: Record<string, unknown>) {
    const { api, sb } = await runPiSession(bin.ok ? bin.bin : '', {
      respond: twoInSequence,
      agents: AGENTS,
      tiergateConfig: { priceOverrides: fakePrices('parent', 'small'), budgets },
      prompt: 'PARENT_GO: delegate twice',
    });
    const children = api.requests.filter((r) => !r.tools.includes('subagent')).map((r) => [lastText(r), r.model]);
    const toolResults = toolTexts(api.requests.at(-1)!);
    return { children, toolResults, decisions: spooledDecisions(sb.tiergateHome) };
  }

  it('the first child crosses the session budget: the second is switched to the cheap tier agent', async () => {
    const { children, decisions } = await run({ session: '0.005' });
    expect(children).toEqual([
      ['Task: CHILD_TASK one', 'parent'],
      ['Task: CHILD_TASK two', 'small'],
    ]);
    expect(decisions).toEqual([
      ['call_first', 'allow', 'within-ceiling'],
      ['call_second', 'correct', 'budget-downshifted'],
    ]);
  });

  it('with action deny the second is blocked and the parent model reads why', async () => {
    const { children, toolResults, decisions } = await run({ session: '0.005', action: 'deny' });
    expect(children).toEqual([['Task: CHILD_TASK one', 'parent']]);
    expect(toolResults[1]).toMatch(
      /^tiergate: the session budget of \$0\.005 \(\$0\.0078 spent\) is spent; no more subagents run under it\./,
    );
    expect(decisions[1]).toEqual(['call_second', 'deny', 'budget-denied']);
  });

  it('under the budget nothing changes', async () => {
    const { children, decisions } = await run({ session: '1', day: '1', month: '1' });
    expect(children.map((c) => c[1])).toEqual(['parent', 'parent']);
    expect(decisions.map((d) => d[2])).toEqual(['within-ceiling', 'within-ceiling']);
  });
});
