/**
 * tiergate's pi extension inside the real pi (0.73.1 under Node 20, 1.6.0 under Node 22: pi-lines.ts) with pi's own example `subagent` tool, against the fake chat API
 * on 127.0.0.1. Assertions are on the model each child request named, what the parent model saw, and the spool.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { piLines } from '../support/pi-lines.js';
import { makePiSandbox, runPi, type PiSandbox } from '../support/pi-run.js';
import { readDiagnostics, readSpool } from '../support/spool-read.js';
import { decisionRecord } from '../support/decision-record.js';

const root = join(import.meta.dirname, '../../..');
const extension = join(root, 'dist/pi.js');

const PRICES = {
  'fake/parent': { input: '3', output: '15', cacheRead: '0.3', cacheWrite5m: '3.75' },
  'fake/big': { input: '15', output: '75', cacheRead: '1.5', cacheWrite5m: '18.75' },
  'fake/small': { input: '0.25', output: '1.25', cacheRead: '0.025', cacheWrite5m: '0.3125' },
};
const CHILD_USAGE: Record<string, { prompt: number; completion: number; cached: number }> = {
  small: { prompt: 2000, completion: 200, cached: 500 },
  big: { prompt: 2200, completion: 220, cached: 700 },
  parent: { prompt: 2100, completion: 210, cached: 600 },
};
const AGENTS = { pricey: 'fake/big', cheap: 'fake/small' };

function responder(input: Record<string, unknown>): (req: RecordedRequest) => Reply {
  return (req) => {
    if (!req.tools.includes('subagent')) {
      return {
        text: `CHILD_FINAL from model=${req.model}: done.\nResult: done`,
        usage: CHILD_USAGE[req.model] ?? { prompt: 1, completion: 1 },
      };
    }
    if (lastMessage(req)?.role === 'tool')
      return { text: 'PARENT_FINAL', usage: { prompt: 3000, completion: 300, cached: 1000 } };
    return {
      toolCalls: [{ name: 'subagent', id: 'call_sub_1', args: input }],
      usage: { prompt: 3000, completion: 300, cached: 1000 },
    };
  };
}

const childRequests = (api: FakeChatApi) => api.requests.filter((r) => !r.tools.includes('subagent'));
const toolResults = (api: FakeChatApi) =>
  api.requests.flatMap((r) => r.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content)));

for (const line of piLines()) {
  describe.skipIf(!line.ok)(`${line.label}: extension (real binary, pi example subagent tool)`, () => {
    const binPath = line.bin;
    const exampleTool = line.exampleTool;
    const apis: FakeChatApi[] = [];
    afterAll(async () => {
      await Promise.all(apis.map((a) => a.close()));
    });

    async function scenario(
      input: Record<string, unknown>,
      agents: Record<string, string | null>,
      tiergateConfig: unknown,
      extraEnv: NodeJS.ProcessEnv = {},
      prepare: (sb: PiSandbox) => void = () => undefined,
    ) {
      const api = await startFakeChatApi(responder(input));
      apis.push(api);
      const sb: PiSandbox = makePiSandbox({
        baseURL: api.baseURL,
        extension,
        agents,
        tiergateConfig,
        nodeDir: line.nodeDir,
      });
      prepare(sb);
      const run = await runPi(binPath, sb, ['-e', exampleTool], 'PARENT_GO: delegate', extraEnv);
      return { api, sb, run };
    }

    it('corrects an over-ceiling agent in tasks[] to the tier agent, leaves the cheap one, records both children once', async () => {
      const { api, sb, run } = await scenario(
        {
          tasks: [
            { agent: 'pricey', task: 'CHILD_TASK one' },
            { agent: 'cheap', task: 'CHILD_TASK two' },
          ],
        },
        { ...AGENTS, 'tiergate-cheap': 'fake/small' },
        { priceOverrides: PRICES },
      );
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const byTask = Object.fromEntries(childRequests(api).map((r) => [contentText(lastMessage(r)?.content), r.model]));
      expect(byTask).toEqual({ 'Task: CHILD_TASK one': 'small', 'Task: CHILD_TASK two': 'small' });
      const spool = readSpool(sb.tiergateHome);
      const dispatches = spool.flatMap((r) =>
        r.type === 'dispatch' ? [[r.observation.requestedAgent, r.decision.action, r.observation.parentModel]] : [],
      );
      expect(dispatches.sort()).toEqual([
        ['cheap', 'allow', 'fake/parent'],
        ['pricey', 'correct', 'fake/parent'],
      ]);
      // The children load tiergate too (settings extensions) but record nothing of their own: exactly two completions.
      const completions = spool.flatMap((r) => (r.type === 'completion' ? [r.observation] : []));
      expect(completions).toHaveLength(2);
      expect(
        completions
          .map((c) => [c.subagentType, c.servedModel, c.usage?.input, c.usage?.cacheRead, c.usage?.output])
          .sort(),
      ).toEqual([
        ['cheap', 'fake/small', 1500, 500, 200],
        ['tiergate-cheap', 'fake/small', 1500, 500, 200],
      ]);
      expect(completions.every((c) => c.outcome.result === 'done' && c.status === 'ok')).toBe(true);
      // Drained into the SQLite ledger by the CLI: joined to their dispatches, priced from the catalog (overrides).
      const report = JSON.parse(
        execFileSync(process.execPath, [join(root, 'dist/cli.js'), 'report', '--json'], {
          env: { ...process.env, TIERGATE_HOME: sb.tiergateHome },
          encoding: 'utf8',
        }),
      );
      expect(report.totals).toMatchObject({
        dispatches: 2,
        completed: 2,
        tokens: { input: 3000, output: 400, cacheRead: 1000 },
        cost: { usd: '0.001275' },
      });
      // The decision record: the pricey agent file's model, switched to tiergate-cheap; both children joined by call id.
      const rows = decisionRecord({ TIERGATE_HOME: sb.tiergateHome, HOME: String(sb.env.HOME) });
      expect(rows.sort((a, b) => String(a.without_model).localeCompare(String(b.without_model)))).toEqual([
        {
          harness: 'pi',
          without_model: 'fake/big',
          without_from: 'agent-file',
          kind: 'correct',
          to_value: 'tiergate-cheap',
          join_method: 'dispatch-id',
          served_model: 'fake/small',
        },
        {
          harness: 'pi',
          without_model: 'fake/small',
          without_from: 'agent-file',
          kind: 'allow',
          to_value: null,
          join_method: 'dispatch-id',
          served_model: 'fake/small',
        },
      ]);
    });

    it('leaves a within-ceiling single dispatch untouched', async () => {
      const { api, run } = await scenario(
        { agent: 'cheap', task: 'CHILD_TASK solo' },
        { ...AGENTS, 'tiergate-cheap': 'fake/small' },
        { priceOverrides: PRICES },
      );
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(childRequests(api).map((r) => r.model)).toEqual(['small']);
    });

    it('denies an over-ceiling dispatch when no tier agent exists: no child, the model sees the reason', async () => {
      const { api, run } = await scenario({ agent: 'pricey', task: 'CHILD_TASK solo' }, AGENTS, {
        priceOverrides: PRICES,
      });
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(childRequests(api)).toEqual([]);
      expect(toolResults(api)).toHaveLength(1);
      expect(toolResults(api)[0]).toMatch(
        /^tiergate: agent pricey runs on fake\/big \(from .*\/agents\/pricey\.md\), which costs more than your own model fake\/parent/,
      );
    });

    it('a spool that cannot be written: the dispatch still decides, the completion fails open with a diagnostic', async () => {
      // The fault comes from outside: a regular file where the spool directory goes (every write under it fails, for
      // root too). A hanging callback and a failing load are the unit tests' (test/unit/adapters/pi, a dependency that
      // never answers or throws).
      const { api, sb, run } = await scenario(
        { agent: 'pricey', task: 'CHILD_TASK solo' },
        { ...AGENTS, 'tiergate-cheap': 'fake/small' },
        { priceOverrides: PRICES },
        {},
        (s) => {
          mkdirSync(join(s.tiergateHome, 'data'), { recursive: true });
          writeFileSync(join(s.tiergateHome, 'data', 'spool'), 'not a directory');
        },
      );
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(childRequests(api).map((r) => r.model)).toEqual(['small']);
      expect(toolResults(api)[0]).toContain('CHILD_FINAL from model=small');
      const diags = readDiagnostics(sb.tiergateHome);
      expect(
        diags.filter((d) => d.where === 'pi:tool_result'),
        JSON.stringify(diags),
      ).toHaveLength(1);
    });
  });

  describe.skipIf(!line.ok)(`${line.label} with tiergate's own tier subagent tool (real binary)`, () => {
    const binPath = line.bin;
    it("an over-ceiling tier is lowered to the parent's own model; the child is recorded once with its usage", async () => {
      const api = await startFakeChatApi(responder({ tier: 'premium', task: 'CHILD_TASK tiered' }));
      try {
        const sb = makePiSandbox({
          nodeDir: line.nodeDir,
          baseURL: api.baseURL,
          extension: join(root, 'dist/pi.js'),
          agents: {},
          tiergateConfig: { priceOverrides: PRICES, tiers: { pi: { cheap: 'fake/small', premium: 'fake/big' } } },
        });
        // Installed the pi way, next to the gate: settings.json "extensions".
        const settings = join(sb.agentDir, 'settings.json');
        const s = JSON.parse(readFileSync(settings, 'utf8'));
        s.extensions.push(join(root, 'dist/pi-subagent.js'));
        writeFileSync(settings, JSON.stringify(s));
        const run = await runPi(binPath, sb, [], 'PARENT_GO: delegate');
        expect(run.code, run.stderr.slice(-2000)).toBe(0);
        expect(childRequests(api).map((r) => r.model)).toEqual(['parent']);
        expect(toolResults(api)[0]).toContain('CHILD_FINAL from model=parent');
        const spool = readSpool(sb.tiergateHome);
        expect(
          spool.flatMap((r) =>
            r.type === 'dispatch' ? [[r.decision.action, r.decision.reason, r.observation.subagentType]] : [],
          ),
        ).toEqual([['correct', 'over-ceiling-corrected', 'premium']]);
        const completions = spool.flatMap((r) => (r.type === 'completion' ? [r.observation] : []));
        expect(completions).toHaveLength(1);
        expect(completions[0]).toMatchObject({
          subagentType: 'tiergate-parent',
          servedModel: 'fake/parent',
          usage: { input: 1500, output: 210, cacheRead: 600 },
        });
      } finally {
        await api.close();
      }
    });
  });

  describe.skipIf(!line.ok)(
    `${line.label} after \`tiergate install pi\` (real binary, pi example subagent tool)`,
    () => {
      const binPath = line.bin;
      const exampleTool = line.exampleTool;
      it('install writes the tier agents; an over-ceiling dispatch is corrected to tiergate-cheap and the child asks for the cheap model', async () => {
        const api = await startFakeChatApi(responder({ agent: 'pricey', task: 'CHILD_TASK solo' }));
        try {
          const sb = makePiSandbox({
            nodeDir: line.nodeDir,
            baseURL: api.baseURL,
            extension,
            agents: { pricey: 'fake/big' },
            tiergateConfig: { priceOverrides: PRICES, tiers: { pi: { cheap: 'fake/small', premium: 'fake/big' } } },
          });
          // Nothing loads tiergate yet: the install's `packages` entry is what makes pi load it.
          writeFileSync(
            join(sb.agentDir, 'settings.json'),
            JSON.stringify({ defaultProvider: 'fake', defaultModel: 'parent' }),
          );
          const cli = (...args: string[]) =>
            JSON.parse(
              execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args, '--json'], {
                env: sb.env,
                encoding: 'utf8',
              }),
            );
          expect(cli('install', 'pi').harnesses[0].status).toBe('done');
          const agentsDir = join(sb.agentDir, 'agents');
          expect(readdirSync(agentsDir).sort()).toEqual(['pricey.md', 'tiergate-cheap.md', 'tiergate-premium.md']);

          const run = await runPi(binPath, sb, ['-e', exampleTool], 'PARENT_GO: delegate');
          expect(run.code, run.stderr.slice(-2000)).toBe(0);
          expect(childRequests(api).map((r) => r.model)).toEqual(['small']);
          expect(toolResults(api)[0]).toContain('CHILD_FINAL from model=small');
          const spool = readSpool(sb.tiergateHome);
          expect(
            spool.flatMap((r) =>
              r.type === 'dispatch' ? [[r.observation.requestedAgent, r.decision.action, r.decision.reason]] : [],
            ),
          ).toEqual([['pricey', 'correct', 'over-ceiling-corrected']]);
          expect(
            spool.flatMap((r) =>
              r.type === 'completion' ? [[r.observation.subagentType, r.observation.servedModel]] : [],
            ),
          ).toEqual([['tiergate-cheap', 'fake/small']]);

          // Uninstall takes out exactly what install wrote: the user's own agent stays.
          expect(cli('uninstall', 'pi').harnesses[0].status).toBe('done');
          expect(readdirSync(agentsDir)).toEqual(['pricey.md']);
        } finally {
          await api.close();
        }
      });
    },
  );
}
