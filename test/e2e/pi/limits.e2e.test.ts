/**
 * Fan-out limits inside the real pi 0.73.1 (pi's example `subagent` tool, tiergate's extension in process) against the
 * fake chat API on 127.0.0.1 (issue 33 item 2). With limits.concurrentSubagents 2 the parent calls `subagent` three
 * times in one message: pi preflights sibling calls (`tool_call`) one after another, then runs them together (reference
 * pi.md §4, docs), and each child's answer is held back 3 s. Two children run (the API sees two child conversations)
 * and the third tool result is the limit's refusal, stating the count, the limit and the money. tool_result on
 * `subagent` is the child's end that releases a place.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  contentText,
  lastMessage,
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
} from '../support/fake-chat-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { makePiSandbox, runPi } from '../support/pi-run.js';
import { readSpool } from '../support/spool-read.js';

const root = join(import.meta.dirname, '../../..');
const extension = join(root, 'dist/pi.js');
const bin = harnessBin('pi');
const exampleTool = bin.ok
  ? join(bin.bin, '../../@mariozechner/pi-coding-agent/examples/extensions/subagent/index.ts')
  : '';

const PRICES = { 'fake/parent': { input: '3', output: '15', cacheRead: '0.3', cacheWrite5m: '3.75' } };
const AGENTS = { worker: 'fake/parent' };

const threeAtOnce = (req: RecordedRequest): Reply => {
  if (!req.tools.includes('subagent'))
    return {
      text: `CHILD_FINAL from model=${req.model}: done.\nResult: done`,
      usage: { prompt: 2100, completion: 210, cached: 600 },
      delayMs: 3000,
    };
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
  const binPath = bin.ok ? bin.bin : '';
  const apis: FakeChatApi[] = [];
  afterAll(async () => {
    await Promise.all(apis.map((a) => a.close()));
  });

  async function run(limits: Record<string, number> | null) {
    const api = await startFakeChatApi(threeAtOnce);
    apis.push(api);
    const sb = makePiSandbox({
      baseURL: api.baseURL,
      extension,
      agents: AGENTS,
      tiergateConfig: { priceOverrides: PRICES, ...(limits ? { limits } : {}) },
    });
    const res = await runPi(binPath, sb, ['-e', exampleTool], 'PARENT_GO: delegate three at once');
    expect(res.code, res.stderr.slice(-2000)).toBe(0);
    const children = [
      ...new Set(
        api.requests.filter((r) => !r.tools.includes('subagent')).map((r) => contentText(lastMessage(r)?.content)),
      ),
    ].sort();
    const toolResults = api.requests
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => contentText(m.content));
    const decisions = readSpool(sb.tiergateHome).flatMap((r) =>
      r.type === 'dispatch' ? [[r.observation.callId, r.decision.reason]] : [],
    );
    return { children, toolResults, decisions };
  }

  it('concurrentSubagents 2: three subagent calls in one message run two children and the third is refused', async () => {
    const { children, toolResults, decisions } = await run({ concurrentSubagents: 2 });
    expect(children).toHaveLength(2);
    const refused = toolResults.filter((t) => t.startsWith('tiergate'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(
      /^tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish, then dispatch this one again\. Money: \$0\.0000 spent on this session's subagents so far/,
    );
    expect(decisions.filter((d) => d[1] === 'limit-denied')).toHaveLength(1);
  });

  it('without a limit all three run', async () => {
    const { children } = await run(null);
    expect(children).toEqual(['Task: CHILD_TASK 1', 'Task: CHILD_TASK 2', 'Task: CHILD_TASK 3']);
  });
});
