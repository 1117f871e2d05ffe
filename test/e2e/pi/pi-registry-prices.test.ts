/**
 * Issue 16, pi 0.73.1 (real binary, pi's example `subagent` tool): a custom provider in models.json declares `cost` per
 * model and tiergate has NO price for them otherwise (no priceOverrides; no catalog knows `fake/*`). The parent runs on
 * the mid-priced `fake/parent` (settings default). Before the fix only the parent's price was known (ctx.model.cost),
 * so an agent on the pricier `fake/big` ran; now its price comes from pi's model registry. Assertions are on the model
 * each child request named at the fake API.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  childDone,
  lastMessage,
  lastText,
  toolTexts,
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
} from '../support/fake-chat-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { makePiSandbox, PI_EXTENSION, piExampleTool, runPi } from '../support/pi-run.js';
import { readSpool } from '../support/spool-read.js';

const bin = harnessBin('pi');

function responder(input: Record<string, unknown>): (req: RecordedRequest) => Reply {
  return (req) => {
    if (!req.tools.includes('subagent')) return childDone(req, { prompt: 2000, completion: 200, cached: 500 });
    if (lastMessage(req)?.role === 'tool')
      return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300, cached: 1000 } };
    return {
      toolCalls: [{ name: 'subagent', id: 'call_sub_1', args: input }],
      usage: { prompt: 3000, completion: 300, cached: 1000 },
    };
  };
}

const childModels = (api: FakeChatApi) => api.requests.filter((r) => !r.tools.includes('subagent')).map((r) => r.model);
const childByTask = (api: FakeChatApi) =>
  Object.fromEntries(api.requests.filter((r) => !r.tools.includes('subagent')).map((r) => [lastText(r), r.model]));
const toolResults = (api: FakeChatApi) => api.requests.flatMap(toolTexts);

describe.skipIf(!bin.ok)("pi 0.73.1: child prices from pi's model registry (custom provider costs only)", () => {
  const binPath = bin.ok ? bin.bin : '';
  const apis: FakeChatApi[] = [];
  afterAll(async () => {
    await Promise.all(apis.map((a) => a.close()));
  });

  async function scenario(input: Record<string, unknown>, agents: Record<string, string>) {
    const api = await startFakeChatApi(responder(input));
    apis.push(api);
    // No priceOverrides: the models.json costs (pi-run.ts: parent 3/15, big 15/75, small 0.25/1.25) are the only prices.
    const sb = makePiSandbox({ baseURL: api.baseURL, extension: PI_EXTENSION, agents, tiergateConfig: {} });
    const run = await runPi(binPath, sb, ['-e', piExampleTool(binPath)], 'PARENT_GO: delegate');
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const dispatches = readSpool(sb.tiergateHome).flatMap((r) =>
      r.type === 'dispatch' ? [[r.observation.requestedAgent, r.decision.action, r.decision.reason]] : [],
    );
    const declaredFile = join(sb.tiergateHome, 'data', 'prices', 'harness-declared.json');
    const declared = existsSync(declaredFile)
      ? (JSON.parse(readFileSync(declaredFile, 'utf8')) as { entries: Array<{ harness: string; model: string }> })
          .entries
      : [];
    return {
      api,
      dispatches,
      declared: declared
        .filter((e) => e.harness === 'pi')
        .map((e) => e.model)
        .sort(),
    };
  }

  it('single agent call on the pricier custom model: corrected to the tier agent, no request ever names big', async () => {
    const { api, dispatches, declared } = await scenario(
      { agent: 'pricey', task: 'CHILD_TASK solo' },
      { pricey: 'fake/big', 'tiergate-cheap': 'fake/small' },
    );
    expect(childModels(api)).toEqual(['small']);
    expect(dispatches).toEqual([['pricey', 'correct', 'over-ceiling-corrected']]);
    // The child's price came from pi (its registry), next to the parent's ctx.model.cost.
    expect(declared).toEqual(expect.arrayContaining(['fake/big', 'fake/parent', 'fake/small']));
  });

  it('parallel tasks: the pricier child is corrected, the one below the parent is left alone', async () => {
    const { api, dispatches } = await scenario(
      {
        tasks: [
          { agent: 'pricey', task: 'CHILD_TASK one' },
          { agent: 'cheap', task: 'CHILD_TASK two' },
        ],
      },
      { pricey: 'fake/big', cheap: 'fake/small', 'tiergate-cheap': 'fake/small' },
    );
    expect(childByTask(api)).toEqual({ 'Task: CHILD_TASK one': 'small', 'Task: CHILD_TASK two': 'small' });
    expect(childModels(api)).not.toContain('big');
    expect(dispatches.sort()).toEqual([
      ['cheap', 'allow', 'within-ceiling'],
      ['pricey', 'correct', 'over-ceiling-corrected'],
    ]);
  });

  it('parallel tasks with no tier agent: the whole call is denied, no child runs, the model reads why', async () => {
    const { api, dispatches } = await scenario(
      {
        tasks: [
          { agent: 'pricey', task: 'CHILD_TASK one' },
          { agent: 'cheap', task: 'CHILD_TASK two' },
        ],
      },
      { pricey: 'fake/big', cheap: 'fake/small' },
    );
    expect(childModels(api)).toEqual([]);
    expect(dispatches.sort()).toEqual([
      ['cheap', 'allow', 'within-ceiling'],
      ['pricey', 'deny', 'over-ceiling-denied'],
    ]);
    expect(toolResults(api)[0]).toMatch(
      /^tasks\[0\]\.agent: tiergate: agent pricey runs on fake\/big \(from .*pricey\.md\), which costs more than your own model fake\/parent/,
    );
  });

  it('a single child below the parent runs on its own model, untouched', async () => {
    const { api, dispatches } = await scenario(
      { agent: 'cheap', task: 'CHILD_TASK solo' },
      { cheap: 'fake/small', 'tiergate-cheap': 'fake/small' },
    );
    expect(childModels(api)).toEqual(['small']);
    expect(dispatches).toEqual([['cheap', 'allow', 'within-ceiling']]);
  });
});
