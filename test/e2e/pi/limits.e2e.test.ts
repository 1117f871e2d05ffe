/**
 * Fan-out limits inside the real pi 0.73.1 (pi's example `subagent` tool, tiergate's extension in process) against the
 * fake chat API on 127.0.0.1 (issue 33 item 2). With limits.concurrentSubagents 2 the parent calls `subagent` three
 * times in one message: pi preflights sibling calls (`tool_call`) one after another, then runs them together (reference
 * pi.md §4, docs), and each child's answer is held back 3 s. Two children run (the API sees two child conversations)
 * and the third tool result is the limit's refusal, stating the count, the limit and the money. tool_result on
 * `subagent` is the child's end that releases a place.
 */
import { describe, expect, it } from 'vitest';
import { childDone, lastText, toolTexts, type RecordedRequest, type Reply } from '../support/fake-chat-api.js';
import { fakePrices } from '../support/fake-prices.js';
import { harnessBin } from '../support/harness-bin.js';
import { runPiSession } from '../support/pi-run.js';
import { spooledDecisions } from '../support/spool-read.js';

const bin = harnessBin('pi');

const AGENTS = { worker: 'fake/parent' };

const threeAtOnce = (req: RecordedRequest): Reply => {
  if (!req.tools.includes('subagent')) return childDone(req, { prompt: 2100, completion: 210, cached: 600 }, 3000);
  if (req.messages.filter((m) => m.role === 'tool').length === 0)
    return {
      toolCalls: [1, 2, 3].map((n) => ({
        name: 'subagent',
        id: `call_c${n}`,
        args: { agent: 'worker', task: `CHILD_TASK ${n}` },
      })),
      usage: { prompt: 3000, completion: 300 },
    };
  return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300 } };
};

describe.skipIf(!bin.ok)('pi 0.73.1: fan-out limits (real binary, pi example subagent tool)', () => {
  async function run(limits: Record<string, number> | null) {
    const { api, sb } = await runPiSession(bin.ok ? bin.bin : '', {
      respond: threeAtOnce,
      agents: AGENTS,
      tiergateConfig: { priceOverrides: fakePrices('parent'), ...(limits ? { limits } : {}) },
      prompt: 'PARENT_GO: delegate three at once',
    });
    const children = [
      ...new Set(api.requests.filter((r) => !r.tools.includes('subagent')).map((r) => lastText(r))),
    ].sort();
    const toolResults = toolTexts(api.requests.at(-1)!);
    return { children, toolResults, decisions: spooledDecisions(sb.tiergateHome) };
  }

  it('concurrentSubagents 2: three subagent calls in one message run two children and the third is refused', async () => {
    const { children, toolResults, decisions } = await run({ concurrentSubagents: 2 });
    expect(children).toHaveLength(2);
    const refused = toolResults.filter((t) => t.startsWith('tiergate'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(
      /^tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish, then dispatch this one again\. Money: \$0\.0000 spent on this session's subagents so far/,
    );
    expect(decisions.filter((d) => d[2] === 'limit-denied')).toHaveLength(1);
  });

  it('without a limit all three run', async () => {
    const { children } = await run(null);
    expect(children).toEqual(['Task: CHILD_TASK 1', 'Task: CHILD_TASK 2', 'Task: CHILD_TASK 3']);
  });
});
