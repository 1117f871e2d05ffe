/**
 * Fan-out limits inside the real opencode 1.18.33 (tiergate's plugin in process) against the fake chat API on 127.0.0.1
 * (issue 33 item 2). With limits.concurrentSubagents 2 the parent dispatches the `worker` agent three times in one
 * message; each child's answer is held back 3 s so the first two are still running: two children run (the API sees
 * two child conversations) and the third `task` result is the limit's refusal, stating the count, the limit and the
 * money. tool.execute.after on `task` is the child's end that releases a place.
 */
import { describe, expect, it } from 'vitest';
import { childDone, lastText, toolTexts, type RecordedRequest, type Reply } from '../support/fake-chat-api.js';
import { fakePrices } from '../support/fake-prices.js';
import { harnessBin } from '../support/harness-bin.js';
import { isOpencodeChild, lastParentRequest, runOpencodeSession, TITLE_REPLY } from '../support/opencode-run.js';
import { spooledDecisions } from '../support/spool-read.js';

const bin = harnessBin('opencode');

const task = (n: number) => ({ description: `task ${n}`, prompt: `CHILD_TASK ${n}`, subagent_type: 'worker' });
const threeAtOnce = (req: RecordedRequest): Reply => {
  if (req.tools.length === 0) return TITLE_REPLY;
  if (!req.tools.includes('task')) return childDone(req, { prompt: 2100, completion: 210, cached: 600 }, 3000);
  if (req.messages.filter((m) => m.role === 'tool').length === 0)
    return {
      toolCalls: [1, 2, 3].map((n) => ({ name: 'task', id: `call_c${n}`, args: task(n) })),
      usage: { prompt: 3000, completion: 300 },
    };
  return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300 } };
};

describe.skipIf(!bin.ok)('OpenCode 1.18.33: fan-out limits (real binary)', () => {
  async function run(limits: Record<string, number> | null) {
    const { api, sb } = await runOpencodeSession(bin.ok ? bin.bin : '', {
      respond: threeAtOnce,
      tiergateConfig: { priceOverrides: fakePrices('parent'), ...(limits ? { limits } : {}) },
      prompt: 'PARENT_GO: delegate three at once',
    });
    const children = [...new Set(api.requests.filter(isOpencodeChild).map((r) => lastText(r)))].sort();
    const toolResults = toolTexts(lastParentRequest(api.requests));
    return { children, toolResults, decisions: spooledDecisions(sb.tiergateHome) };
  }

  it('concurrentSubagents 2: three task calls in one message run two children and the third is refused', async () => {
    const { children, toolResults, decisions } = await run({ concurrentSubagents: 2 });
    expect(children).toHaveLength(2);
    const refused = toolResults.filter((t) => t.includes('tiergate'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(
      /tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish, then dispatch this one again\. Money: \$0\.0000 spent on this session's subagents so far/,
    );
    expect(decisions.filter((d) => d[2] === 'limit-denied')).toHaveLength(1);
  });

  it('without a limit all three run', async () => {
    const { children } = await run(null);
    expect(children).toEqual(['CHILD_TASK 1', 'CHILD_TASK 2', 'CHILD_TASK 3']);
  });
});
