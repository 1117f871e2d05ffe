/**
 * tiergate's OpenCode plugin inside the real opencode 1.18.33, against the fake chat API on 127.0.0.1. Assertions are
 * on what the API received (the model each child request named, the tool results the parent saw) and on the spool.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contentText,
  lastMessage,
  lastText,
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
} from '../support/fake-chat-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { decisionRecord } from '../support/decision-record.js';
import { fakePrices } from '../support/fake-prices.js';
import { isOpencodeChild, makeSandbox, OPENCODE_PLUGIN, runOpencode, TITLE_REPLY } from '../support/opencode-run.js';
import { readDiagnostics, readSpool } from '../support/spool-read.js';

const bin = harnessBin('opencode');

/** Distinct usage per child model, so the ledger's numbers trace back to one response. */
const CHILD_USAGE: Record<string, { prompt: number; completion: number; cached: number }> = {
  small: { prompt: 2000, completion: 200, cached: 500 },
  parent: { prompt: 2100, completion: 210, cached: 600 },
  big: { prompt: 2200, completion: 220, cached: 700 },
};

const PRICES = fakePrices('parent', 'big', 'small');

function responder(dispatch: string[]): (req: RecordedRequest) => Reply {
  return (req) => {
    if (req.tools.length === 0) return TITLE_REPLY;
    if (!req.tools.includes('task'))
      return {
        text: `CHILD_FINAL from model=${req.model}: done.\nResult: done\nVerified: yes`,
        usage: CHILD_USAGE[req.model] ?? { prompt: 1, completion: 1 },
      };
    const last = lastMessage(req);
    if (last?.role === 'tool') return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300, cached: 1000 } };
    return {
      toolCalls: dispatch.map((agent, i) => ({
        name: 'task',
        id: `call_${agent}_${i}`,
        args: { description: `task for ${agent}`, prompt: `CHILD_TASK for ${agent}`, subagent_type: agent },
      })),
      usage: { prompt: 3000, completion: 300, cached: 1000 },
    };
  };
}

const childRequests = (api: FakeChatApi) => api.requests.filter(isOpencodeChild);
const toolResults = (api: FakeChatApi) =>
  api.requests
    .filter((r) => r.tools.includes('task'))
    .flatMap((r) =>
      r.messages.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, text: contentText(m.content) })),
    );

describe.skipIf(!bin.ok)('OpenCode 1.18.33 plugin (real binary)', () => {
  const binPath = bin.ok ? bin.bin : '';
  const apis: FakeChatApi[] = [];
  afterAll(async () => {
    await Promise.all(apis.map((a) => a.close()));
  });

  describe('over-ceiling corrected, within-ceiling untouched, completion recorded', () => {
    let api: FakeChatApi;
    let sb: ReturnType<typeof makeSandbox>;
    let run: Awaited<ReturnType<typeof runOpencode>>;
    beforeAll(async () => {
      api = await startFakeChatApi(responder(['pricey', 'cheap']));
      apis.push(api);
      sb = makeSandbox({
        baseURL: api.baseURL,
        pluginFile: OPENCODE_PLUGIN,
        tiergateConfig: { tiers: { opencode: { cheap: 'fake/small' } }, priceOverrides: PRICES },
      });
      run = await runOpencode(binPath, sb, 'PARENT_GO: delegate to two subagents');
    });

    it('runs to the end', () => {
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(api.requests.some((r) => r.tools.includes('task') && lastMessage(r)?.role === 'tool')).toBe(true);
    });

    it('the pricey dispatch ran on the parent tier, never on big; the cheap one stayed on small', () => {
      const models = childRequests(api)
        .map((r) => r.model)
        .sort();
      expect(models).toEqual(['parent', 'small']);
      const byPrompt = Object.fromEntries(childRequests(api).map((r) => [lastText(r), r.model]));
      expect(byPrompt['CHILD_TASK for pricey']).toBe('parent');
      expect(byPrompt['CHILD_TASK for cheap']).toBe('small');
    });

    it('spools both dispatch decisions and both completions with served model and usage', () => {
      const spool = readSpool(sb.tiergateHome);
      const dispatches = spool.filter((r) => r.type === 'dispatch');
      expect(
        dispatches.map((d) => [d.observation.requestedAgent, d.decision.action, d.decision.reason]).sort(),
      ).toEqual([
        ['cheap', 'allow', 'within-ceiling'],
        ['pricey', 'correct', 'over-ceiling-corrected'],
      ]);
      const completions = spool.flatMap((r) => (r.type === 'completion' ? [r.observation] : []));
      const small = completions.find((c) => c.subagentType === 'cheap');
      const corrected = completions.find((c) => c.subagentType === 'tiergate-parent');
      expect(small?.servedModel).toBe('fake/small');
      expect(small?.usage).toMatchObject({ input: 1500, output: 200, cacheRead: 500, requests: 1 });
      expect(small?.outcome).toMatchObject({ result: 'done', verified: 'yes' });
      expect(corrected?.servedModel).toBe('fake/parent');
      expect(corrected?.usage).toMatchObject({ input: 1500, output: 210, cacheRead: 600 });
      expect(completions.every((c) => c.usageSource === 'sdk' && c.agentId?.startsWith('ses_'))).toBe(true);
    });

    it('verifies the correction took effect (no correction-not-applied diagnostic)', () => {
      expect(
        readDiagnostics(sb.tiergateHome).filter((d) => String(d.where).includes('correction-not-applied')),
      ).toEqual([]);
    });

    it('the decision record: what each agent would have run on, the switch, and the join by call id (issue 29)', () => {
      const rows = decisionRecord({ TIERGATE_HOME: sb.tiergateHome, HOME: String(sb.env.HOME) });
      expect(rows.sort((a, b) => String(a.without_model).localeCompare(String(b.without_model)))).toEqual([
        {
          harness: 'opencode',
          without_model: 'fake/big',
          // The agent is defined in opencode.json: the harness's own config is the link.
          without_from: 'harness-config',
          kind: 'correct',
          to_value: 'tiergate-parent',
          join_method: 'dispatch-id',
          served_model: 'fake/parent',
        },
        {
          harness: 'opencode',
          without_model: 'fake/small',
          without_from: 'harness-config',
          kind: 'allow',
          to_value: null,
          join_method: 'dispatch-id',
          served_model: 'fake/small',
        },
      ]);
    });
  });

  describe('over-ceiling denied when no tier agent is configured', () => {
    let api: FakeChatApi;
    let run: Awaited<ReturnType<typeof runOpencode>>;
    beforeAll(async () => {
      api = await startFakeChatApi(responder(['pricey']));
      apis.push(api);
      const sb = makeSandbox({
        baseURL: api.baseURL,
        pluginFile: OPENCODE_PLUGIN,
        tiergateConfig: { priceOverrides: PRICES },
      });
      run = await runOpencode(binPath, sb, 'PARENT_GO: delegate to a subagent');
    });

    it('no child request reached the API and the model saw the reason', () => {
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(childRequests(api)).toEqual([]);
      const results = toolResults(api);
      expect(results).toHaveLength(1);
      expect(results[0]!.text).toMatch(
        /^tiergate: agent pricey runs on fake\/big \(from opencode.json agent.pricey\), which costs more than your own model fake\/parent/,
      );
    });
  });

  // The fault comes from outside: a regular file where the spool directory goes (every write under it fails, for root
  // too). A hanging callback (an SDK that never answers) and a failing load are the unit tests'
  // (test/unit/adapters/opencode).
  describe('fail-open: a spool that cannot be written', () => {
    let api: FakeChatApi;
    let sb: ReturnType<typeof makeSandbox>;
    let run: Awaited<ReturnType<typeof runOpencode>>;
    beforeAll(async () => {
      api = await startFakeChatApi(responder(['pricey']));
      apis.push(api);
      sb = makeSandbox({
        baseURL: api.baseURL,
        pluginFile: OPENCODE_PLUGIN,
        tiergateConfig: { tiers: { opencode: { cheap: 'fake/small' } }, priceOverrides: PRICES },
      });
      mkdirSync(join(sb.tiergateHome, 'data'), { recursive: true });
      writeFileSync(join(sb.tiergateHome, 'data', 'spool'), 'not a directory');
      run = await runOpencode(binPath, sb, 'PARENT_GO: delegate to a subagent');
    });

    it('the dispatch still decided, and the parent received the answer of the child, not an error', () => {
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      // Corrected to tiergate-parent, as with a writable spool (the first scenario above).
      expect(childRequests(api).map((r) => r.model)).toEqual(['parent']);
      const results = toolResults(api);
      expect(results).toHaveLength(1);
      expect(results[0]!.text).toContain('CHILD_FINAL from model=parent');
    });

    it('the completion that could not be recorded left one diagnostic line', () => {
      const diags = readDiagnostics(sb.tiergateHome);
      expect(
        diags.filter((d) => d.where === 'opencode:tool.execute.after'),
        JSON.stringify(diags),
      ).toHaveLength(1);
    });
  });
});
