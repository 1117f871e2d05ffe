/**
 * Fan-out limits inside the real opencode 1.18.33 (tiergate's plugin in process) against the fake chat API on 127.0.0.1
 * (issue 33 item 2). With limits.concurrentSubagents 2 the parent dispatches the `worker` agent three times in one
 * message; each child's answer is held back 3 s so the first two are still running: two children run (the API sees
 * two child conversations) and the third `task` result is the limit's refusal, stating the count, the limit and the
 * money. tool.execute.after on `task` is the child's end that releases a place.
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
import { makeSandbox, runOpencode } from '../support/opencode-run.js';
import { readSpool } from '../support/spool-read.js';

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

const task = (n: number) => ({ description: `task ${n}`, prompt: `CHILD_TASK ${n}`, subagent_type: 'worker' });
const threeAtOnce = (req: RecordedRequest): Reply => {
  if (req.tools.length === 0) return { text: 'Demo title', usage: { prompt: 50, completion: 5 } };
  if (!req.tools.includes('task'))
    return {
      text: `CHILD_FINAL from model=${req.model}: done.\nResult: done`,
      usage: { prompt: 2100, completion: 210, cached: 600 },
      delayMs: 3000,
    };
  if (req.messages.filter((m) => m.role === 'tool').length === 0)
    return {
      toolCalls: [1, 2, 3].map((n) => ({ name: 'task', id: `call_c${n}`, args: task(n) })),
      usage: { prompt: 3000, completion: 300 },
    };
  return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300 } };
};

describe.skipIf(!bin.ok)('OpenCode 1.18.33: fan-out limits (real binary)', () => {
  const binPath = bin.ok ? bin.bin : '';
  const apis: FakeChatApi[] = [];
  afterAll(async () => {
    await Promise.all(apis.map((a) => a.close()));
  });

  async function run(limits: Record<string, number> | null) {
    const api = await startFakeChatApi(threeAtOnce);
    apis.push(api);
    const sb = makeSandbox({
      baseURL: api.baseURL,
      pluginFile: plugin,
      agents: AGENTS,
      tiergateConfig: { priceOverrides: PRICES, ...(limits ? { limits } : {}) },
    });
    const res = await runOpencode(binPath, sb, 'PARENT_GO: delegate three at once');
    expect(res.code, res.stderr.slice(-2000)).toBe(0);
    const children = [
      ...new Set(
        api.requests
          .filter((r) => r.tools.length > 0 && !r.tools.includes('task'))
          .map((r) => contentText(lastMessage(r)?.content)),
      ),
    ].sort();
    const last = api.requests.filter((r) => r.tools.includes('task')).at(-1)!;
    const toolResults = last.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content));
    const decisions = readSpool(sb.tiergateHome).flatMap((r) =>
      r.type === 'dispatch' ? [[r.observation.callId, r.decision.reason]] : [],
    );
    return { children, toolResults, decisions };
  }

  it('concurrentSubagents 2: three task calls in one message run two children and the third is refused', async () => {
    const { children, toolResults, decisions } = await run({ concurrentSubagents: 2 });
    expect(children).toHaveLength(2);
    const refused = toolResults.filter((t) => t.includes('tiergate'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(
      /tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish, then dispatch this one again\. Money: \$0\.0000 spent on this session's subagents so far/,
    );
    expect(decisions.filter((d) => d[1] === 'limit-denied')).toHaveLength(1);
  });

  it('without a limit all three run', async () => {
    const { children } = await run(null);
    expect(children).toEqual(['CHILD_TASK 1', 'CHILD_TASK 2', 'CHILD_TASK 3']);
  });
});
