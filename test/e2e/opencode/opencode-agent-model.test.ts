/**
 * Issue 16, OpenCode 1.18.33 (real binary): the child runs on its agent's configured model, from opencode.json `agent`
 * or an agent markdown file ($OPENCODE_CONFIG_DIR/agent/, the project's .opencode/agent/), and that model's price comes
 * from the provider config alone: no priceOverrides, and no catalog knows `fake/*`. Three parallel task calls; the
 * assertions are on the model each child request named at the fake API.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childDone,
  lastMessage,
  lastText,
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
} from '../support/fake-chat-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { makeSandbox, OPENCODE_PLUGIN, runOpencode, seedConfigDir, TITLE_REPLY } from '../support/opencode-run.js';
import { readSpool } from '../support/spool-read.js';

const bin = harnessBin('opencode');
const DISPATCH = ['pricey', 'mdpricey', 'mdcheap'];

function responder(req: RecordedRequest): Reply {
  if (req.tools.length === 0) return TITLE_REPLY;
  if (!req.tools.includes('task')) return childDone(req, { prompt: 2000, completion: 200, cached: 500 });
  if (lastMessage(req)?.role === 'tool')
    return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300, cached: 1000 } };
  return {
    toolCalls: DISPATCH.map((agent, i) => ({
      name: 'task',
      id: `call_${agent}_${i}`,
      args: { description: `task for ${agent}`, prompt: `CHILD_TASK for ${agent}`, subagent_type: agent },
    })),
    usage: { prompt: 3000, completion: 300, cached: 1000 },
  };
}

const mdAgent = (model: string) =>
  `---\ndescription: markdown agent on ${model}\nmode: subagent\nmodel: ${model}\n---\nYou are a markdown agent.\n`;

describe.skipIf(!bin.ok)(
  'OpenCode 1.18.33: agent models from opencode.json and markdown files, priced from the provider config',
  () => {
    const binPath = bin.ok ? bin.bin : '';
    let api: FakeChatApi;
    let sb: ReturnType<typeof makeSandbox>;
    let run: Awaited<ReturnType<typeof runOpencode>>;
    let mdpricey: string;
    let mdcheap: string;

    beforeAll(async () => {
      api = await startFakeChatApi(responder);
      // The tier map only names tiergate's cheap agent; the prices are the provider config's (opencode-run.ts) alone.
      sb = makeSandbox({
        baseURL: api.baseURL,
        pluginFile: OPENCODE_PLUGIN,
        tiergateConfig: { tiers: { opencode: { cheap: 'fake/small' } } },
        agents: {
          pricey: {
            mode: 'subagent',
            description: 'Expensive subagent (fake/big)',
            model: 'fake/big',
            prompt: 'You are pricey.',
          },
        },
      });
      const cfgDir = join(sb.root, 'opencode-config-dir');
      mkdirSync(join(cfgDir, 'agent'), { recursive: true });
      mdpricey = join(cfgDir, 'agent', 'mdpricey.md');
      writeFileSync(mdpricey, mdAgent('fake/big'));
      const projectDir = join(sb.project, '.opencode');
      seedConfigDir(projectDir);
      mkdirSync(join(projectDir, 'agent'), { recursive: true });
      mdcheap = join(projectDir, 'agent', 'mdcheap.md');
      writeFileSync(mdcheap, mdAgent('fake/small'));
      run = await runOpencode(binPath, sb, 'PARENT_GO: delegate to three subagents');
    });
    afterAll(async () => {
      await api?.close();
    });

    it("no child request named big: both agents on the pricier model ran on the parent's, the cheaper one on its own", () => {
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const byPrompt = Object.fromEntries(
        api.requests.filter((r) => r.tools.length > 0 && !r.tools.includes('task')).map((r) => [lastText(r), r.model]),
      );
      expect(byPrompt).toEqual({
        'CHILD_TASK for pricey': 'parent',
        'CHILD_TASK for mdpricey': 'parent',
        'CHILD_TASK for mdcheap': 'small',
      });
    });

    it('each decision names the agent model and where it was configured', () => {
      const dispatches = readSpool(sb.tiergateHome).flatMap((r) => (r.type === 'dispatch' ? [r] : []));
      const rows = dispatches.map((d) => [
        d.observation.requestedAgent,
        d.observation.agentModel,
        d.observation.agentModelFrom,
        d.decision.action,
        d.decision.reason,
      ]);
      expect(rows.sort()).toEqual([
        ['mdcheap', 'fake/small', mdcheap, 'allow', 'within-ceiling'],
        ['mdpricey', 'fake/big', mdpricey, 'correct', 'over-ceiling-corrected'],
        ['pricey', 'fake/big', 'opencode.json agent.pricey', 'correct', 'over-ceiling-corrected'],
      ]);
    });

    it("the prices came from OpenCode's provider config (the harness-declared layer)", () => {
      const file = join(sb.tiergateHome, 'data', 'prices', 'harness-declared.json');
      expect(existsSync(file)).toBe(true);
      const entries = (
        JSON.parse(readFileSync(file, 'utf8')) as {
          entries: Array<{ harness: string; model: string; rates: { input: string } }>;
        }
      ).entries;
      expect(
        entries
          .filter((e) => e.harness === 'opencode')
          .map((e) => [e.model, e.rates.input])
          .sort(),
      ).toEqual(
        expect.arrayContaining([
          ['fake/big', '15'],
          ['fake/parent', '3'],
          ['fake/small', '0.25'],
        ]),
      );
    });
  },
);
