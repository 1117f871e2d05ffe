/**
 * Spend budgets inside the real opencode 1.18.33 (tiergate's plugin in process, in Bun) against the fake chat API on
 * 127.0.0.1. The parent (fake/parent) dispatches the `worker` agent (also fake/parent: within the ceiling) twice, the
 * second once the first's result is back. The first child's usage (1500 input, 600 cached, 210 output: $0.00783 at
 * fake/parent's price) crosses a session budget of $0.005; the plugin's completion handler counts it before the second
 * `task` call, which is then switched to the cheap tier agent (the API sees `small`) or, with action deny, refused (the
 * parent model reads the reason). Under the budget both children run on `parent`.
 */
import { describe, expect, it } from 'vitest';
import { childDone, lastText, toolTexts, type RecordedRequest, type Reply } from '../support/fake-chat-api.js';
import { fakePrices } from '../support/fake-prices.js';
import { harnessBin } from '../support/harness-bin.js';
import { isOpencodeChild, lastParentRequest, runOpencodeSession, TITLE_REPLY } from '../support/opencode-run.js';
import { spooledDecisions } from '../support/spool-read.js';

const bin = harnessBin('opencode');

const task = (n: number) => ({ description: `task ${n}`, prompt: `CHILD_TASK ${n}`, subagent_type: 'worker' });
const twoInSequence = (req: RecordedRequest): Reply => {
  if (req.tools.length === 0) return TITLE_REPLY;
  if (!req.tools.includes('task')) return childDone(req, { prompt: 2100, completion: 210, cached: 600 });
  const results = req.messages.filter((m) => m.role === 'tool').length;
  if (results === 0)
    return { toolCalls: [{ name: 'task', id: 'call_first', args: task(1) }], usage: { prompt: 3000, completion: 300 } };
  if (results === 1)
    return {
      toolCalls: [{ name: 'task', id: 'call_second', args: task(2) }],
      usage: { prompt: 3000, completion: 300 },
    };
  return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300 } };
};

describe.skipIf(!bin.ok)('OpenCode 1.18.33: spend budgets (real binary)', () => {
  async function run(budgets: Record<string, unknown>) {
    const { api, sb } = await runOpencodeSession(bin.ok ? bin.bin : '', {
      respond: twoInSequence,
      tiergateConfig: {
        tiers: { opencode: { cheap: 'fake/small' } },
        priceOverrides: fakePrices('parent', 'small'),
        budgets,
      },
      prompt: 'PARENT_GO: delegate twice',
    });
    const children = api.requests.filter(isOpencodeChild).map((r) => [lastText(r), r.model]);
    const toolResults = toolTexts(lastParentRequest(api.requests));
    return { children, toolResults, decisions: spooledDecisions(sb.tiergateHome) };
  }

  it('the first child crosses the session budget: the second is switched to the cheap tier agent', async () => {
    const { children, decisions } = await run({ session: '0.005' });
    expect(children).toEqual([
      ['CHILD_TASK 1', 'parent'],
      ['CHILD_TASK 2', 'small'],
    ]);
    expect(decisions).toEqual([
      ['call_first', 'allow', 'within-ceiling'],
      ['call_second', 'correct', 'budget-downshifted'],
    ]);
  });

  it('with action deny the second is refused and the parent model reads why', async () => {
    const { children, toolResults, decisions } = await run({ session: '0.005', action: 'deny' });
    expect(children).toEqual([['CHILD_TASK 1', 'parent']]);
    expect(toolResults[1]).toMatch(
      /tiergate: the session budget of \$0\.005 \(\$0\.0078 spent\) is spent; no more subagents run under it\./,
    );
    expect(decisions[1]).toEqual(['call_second', 'deny', 'budget-denied']);
  });

  it('under the budget nothing changes', async () => {
    const { children } = await run({ session: '1' });
    expect(children.map((c) => c[1])).toEqual(['parent', 'parent']);
  });
});
