/**
 * The real Grok Build 1.0.41 against a fake chat-completions API on 127.0.0.1, with tiergate's hooks installed by
 * `tiergate install grok` ($GROK_HOME/hooks/tiergate.json -> dist/hook.cjs). Every assertion is on what the fake API
 * received (the model each child request named, the tool result the parent model read) and what tiergate recorded.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contentText,
  lastMessage,
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
  type ScriptedUsage,
  toolResultsById,
} from '../support/fake-chat-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { diagnosticsText, ledgerRows } from '../support/ledger-read.js';
import { grokEnv, makeGrokHome, promptArgs, REPO, tiergate, writeGrokConfig, type GrokHome } from './grok-run.js';
import { runInProject } from '../support/sandbox.js';

const found = harnessBin('grok');
const bin = found.ok ? found.bin : '';

const PARENT = 'grok-4.6';
/** Models the sandbox's Grok knows (each a [model.*] table on the fake API). */
const MODELS = [PARENT, 'grok-4.5', 'grok-4.3', 'claude-opus-4-1', 'claude-opus-4-8'];
const CHILD_USAGE: ScriptedUsage = { prompt: 2100, completion: 210, cached: 600 };
const spawnArgs = (extra: Record<string, unknown> = {}) => ({
  prompt: 'E2E-CHILD: do the task and report.',
  description: 'e2e child',
  subagent_type: 'general-purpose',
  run_in_background: false,
  ...extra,
});

const isChild = (q: RecordedRequest) => contentText(q.messages[0]?.content).startsWith('You are a Grok Build subagent');
/** The parent's agent turns (they offer spawn_subagent); the title and dashboard side calls do not. */
const isParentTurn = (q: RecordedRequest) =>
  q.tools.includes('spawn_subagent') && !contentText(lastMessage(q)?.content).includes('dashboard line');

/** The fake model: the parent spawns `first`; after a denial it spawns `retry` (once); the child answers. */
function responder(first: Record<string, unknown>, retry?: Record<string, unknown>): (req: RecordedRequest) => Reply {
  let retried = false;
  return (req) => {
    if (isChild(req)) return { text: 'E2E child finished.\nResult: done\nVerified: yes', usage: CHILD_USAGE };
    if (!isParentTurn(req)) return { text: 'E2E title' };
    const last = lastMessage(req);
    if (last?.role !== 'tool')
      return {
        toolCalls: [{ name: 'spawn_subagent', id: 'call_e2e_1', args: first }],
        usage: { prompt: 3000, completion: 30 },
      };
    if (retry && !retried && contentText(last.content).startsWith('Hook denied')) {
      retried = true;
      return {
        toolCalls: [{ name: 'spawn_subagent', id: 'call_e2e_2', args: retry }],
        usage: { prompt: 3100, completion: 31 },
      };
    }
    return { text: 'PARENT_FINAL', usage: { prompt: 3200, completion: 32 } };
  };
}

type Run = { api: FakeChatApi; home: GrokHome; code: number | null; stdout: string; stderr: string };
const homes: GrokHome[] = [];

async function run(o: {
  first: Record<string, unknown>;
  retry?: Record<string, unknown>;
  config?: unknown;
  subagents?: string;
  models?: readonly string[];
  env?: Record<string, string>;
  setup?: (h: GrokHome) => void;
}): Promise<Run> {
  const api = await startFakeChatApi(responder(o.first, o.retry));
  const home = makeGrokHome(o.config);
  homes.push(home);
  writeGrokConfig(home, api.baseURL, o.models ?? MODELS, o.subagents ?? '');
  tiergate(home, ['install', 'grok']);
  o.setup?.(home);
  const r = await runInProject(bin, promptArgs('E2E-PARENT: delegate the task.', PARENT), home, grokEnv(home, o.env));
  await api.close();
  return { api, home, code: r.code, stdout: r.stdout, stderr: r.stderr };
}

const children = (r: Run) => r.api.requests.filter(isChild);
const toolResults = (r: Run) => toolResultsById(r.api.requests);

const ledger = (h: GrokHome, sql: string) => ledgerRows(h.tiergateHome, sql);
const diagnostics = (h: GrokHome) => diagnosticsText(h.tiergateHome);

describe.skipIf(!found.ok)('Grok Build 1.0.41 end to end', () => {
  beforeAll(() => {
    if (!existsSync(join(REPO, 'dist/hook.cjs')))
      throw new Error('dist/hook.cjs missing: run `npm run build` (npm run test:e2e does)');
  });
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it("over the ceiling: corrected, the child's requests name the parent's model; the ledger has its served model and cost", async () => {
    const r = await run({ first: spawnArgs({ model: 'claude-opus-4-1' }) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    expect(toolResults(r).call_e2e_1).toContain('E2E child finished.');
    expect(
      ledger(
        r.home,
        'SELECT harness, action, reason, requested_model, parent_model, effective_model, call_id FROM dispatches',
      ),
    ).toEqual([
      {
        harness: 'grok',
        action: 'correct',
        reason: 'over-ceiling-corrected',
        requested_model: 'claude-opus-4-1',
        parent_model: PARENT,
        effective_model: PARENT,
        call_id: 'call_e2e_1',
      },
    ]);
    const [row] = ledger(
      r.home,
      'SELECT status, served_model, input, output, cache_read, cost_pico, result, verified, dispatch_id IS NOT NULL AS joined FROM completions',
    );
    // Grok's inputTokens is the wire's prompt_tokens, cached reads included: tiergate's input excludes them.
    expect(row).toMatchObject({
      status: 'ok',
      served_model: PARENT,
      input: CHILD_USAGE.prompt - CHILD_USAGE.cached!,
      output: CHILD_USAGE.completion,
      cache_read: CHILD_USAGE.cached,
      result: 'done',
      verified: 'yes',
      joined: 1,
    });
    expect(Number(row!.cost_pico)).toBeGreaterThan(0);
    const report = JSON.parse(tiergate(r.home, ['report', '--json', '--harness', 'grok'])) as {
      rows: Array<Record<string, any>>;
    };
    expect(report.rows.find((x) => x.group === 'general-purpose')).toMatchObject({
      dispatches: 1,
      completed: 1,
      corrected: 1,
    });
  });

  it("nothing cheaper fits: denied, the model reads the reason, and its retry runs on the parent's model", async () => {
    // claude-opus-4-8 is pricier than grok-4.6 except on the long-context cache read, where grok-4.6 (and grok-4.5)
    // cost more: switching would raise that cost, so no correction fits.
    // No grok-4.3 in this Grok's catalog: the cheap tier is no choice here (a correction names only known models).
    const r = await run({
      first: spawnArgs({ model: 'claude-opus-4-8' }),
      retry: spawnArgs(),
      models: [PARENT, 'grok-4.5', 'claude-opus-4-8'],
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(toolResults(r).call_e2e_1).toMatch(
      /^Hook denied: tiergate: subagent model claude-opus-4-8 costs more than your own model grok-4\.6 .*Retry the same dispatch without model/,
    );
    expect(toolResults(r).call_e2e_2).toContain('E2E child finished.');
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    expect(ledger(r.home, 'SELECT action, reason FROM dispatches ORDER BY at, id')).toEqual([
      { action: 'deny', reason: 'over-ceiling-denied' },
      { action: 'correct', reason: 'default-tier-applied' },
    ]);
  });

  it('within the ceiling: untouched, the child on the model it asked for', async () => {
    const r = await run({ first: spawnArgs({ model: 'grok-4.5' }) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual(['grok-4.5']);
    expect(ledger(r.home, 'SELECT action, reason FROM dispatches')).toEqual([
      { action: 'allow', reason: 'within-ceiling' },
    ]);
    expect(ledger(r.home, 'SELECT status, served_model FROM completions')).toEqual([
      { status: 'ok', served_model: 'grok-4.5' },
    ]);
    // `tiergate scan` reads the session folders: the parent's and the child's per-model records, all priced.
    const scan = JSON.parse(tiergate(r.home, ['scan', '--harness', 'grok', '--json'])) as Record<string, any>;
    expect(scan.roots).toEqual([join(r.home.grokHome, 'sessions')]);
    expect(scan).toMatchObject({ failed: 0, requestsNew: 2 });
    expect(scan.totals.unpricedRequests).toBe(0);
  });

  it('a cheap per-type default ([subagents.models]) is never raised to a pricier tier', async () => {
    const r = await run({
      first: spawnArgs({ subagent_type: 'explore' }),
      subagents: '[subagents.models]\nexplore = "grok-4.3"\n',
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual(['grok-4.3']);
    expect(ledger(r.home, 'SELECT action, reason FROM dispatches')).toEqual([
      { action: 'allow', reason: 'within-ceiling' },
    ]);
  });

  it("a role's pricier model (over the per-type pin) is caught: the child runs on the parent's (without tiergate, on the role's)", async () => {
    const subagents =
      '[subagents.models]\nexplore = "grok-4.3"\n\n[subagents.roles.explore]\nmodel = "claude-opus-4-1"\n';
    // The control: Grok itself puts the role's model over the per-type pin.
    const bare = await run({
      first: spawnArgs({ subagent_type: 'explore' }),
      subagents,
      setup: (h) => rmSync(join(h.grokHome, 'hooks', 'tiergate.json')),
    });
    expect(children(bare).map((q) => q.model)).toEqual(['claude-opus-4-1']);
    const r = await run({ first: spawnArgs({ subagent_type: 'explore' }), subagents });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    expect(ledger(r.home, 'SELECT action, requested_model FROM dispatches')).toEqual([
      { action: 'correct', requested_model: null },
    ]);
  });

  it("an agent file's pricier `model:` is caught: the child runs on the parent's (without tiergate, on the agent's)", async () => {
    const agent = (h: GrokHome) => {
      mkdirSync(join(h.grokHome, 'agents'), { recursive: true });
      writeFileSync(
        join(h.grokHome, 'agents', 'reviewer.md'),
        '---\nname: reviewer\ndescription: Reviews code. Use for the e2e task.\nmodel: claude-opus-4-1\n---\nYou review.\n',
      );
    };
    // The control: Grok itself runs this child on the agent file's model.
    const bare = await run({
      first: spawnArgs({ subagent_type: 'reviewer' }),
      setup: (h) => {
        agent(h);
        rmSync(join(h.grokHome, 'hooks', 'tiergate.json'));
      },
    });
    expect(bare.code, bare.stderr.slice(-2000)).toBe(0);
    expect(children(bare).map((q) => q.model)).toEqual(['claude-opus-4-1']);
    const r = await run({ first: spawnArgs({ subagent_type: 'reviewer' }), setup: agent });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    expect(ledger(r.home, 'SELECT action, requested_model, subagent_type FROM dispatches')).toEqual([
      { action: 'correct', requested_model: null, subagent_type: 'reviewer' },
    ]);
  });

  it('no model in the call: the default tier, capped by the parent, never above it', async () => {
    const r = await run({ first: spawnArgs() });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    expect(ledger(r.home, 'SELECT action, reason, effective_model FROM dispatches')).toEqual([
      { action: 'correct', reason: 'default-tier-applied', effective_model: PARENT },
    ]);
  });

  it('faults fail open: a crashing hook (exit 1) lets the spawn through; a broken policy file is ignored and said', async () => {
    const crashed = await run({
      first: spawnArgs({ model: 'claude-opus-4-1' }),
      setup: (h) => {
        const f = join(h.grokHome, 'hooks', 'tiergate.json');
        writeFileSync(f, readFileSync(f, 'utf8').replaceAll(join(REPO, 'dist'), '/nonexistent/tiergate/dist'));
      },
    });
    expect(crashed.code, crashed.stderr.slice(-2000)).toBe(0);
    expect(children(crashed).map((q) => q.model)).toEqual(['claude-opus-4-1']);
    expect(toolResults(crashed).call_e2e_1).toContain('E2E child finished.');

    const broken = await run({
      first: spawnArgs({ model: 'claude-opus-4-1' }),
      setup: (h) => {
        mkdirSync(join(h.tiergateHome, 'config'), { recursive: true });
        writeFileSync(join(h.tiergateHome, 'config', 'config.json'), '{"tiers": oops');
      },
    });
    expect(broken.code, broken.stderr.slice(-2000)).toBe(0);
    expect(toolResults(broken).call_e2e_1).toContain('E2E child finished.');
    // The built-in policy decides: still corrected, and the log says the file was ignored.
    expect(children(broken).map((q) => q.model)).toEqual([PARENT]);
    expect(diagnostics(broken.home)).toMatch(/config\.json: not valid JSON .*ignored/);
  });

  it('Claude hooks in ~/.claude/settings.json fire in Grok too: they stand aside, one dispatch gets one decision', async () => {
    const hook = (event: string) => ({
      type: 'command',
      command: `node ${join(REPO, 'dist', 'hook.cjs')} claude ${event}`,
      timeout: 10,
    });
    const r = await run({
      first: spawnArgs({ model: 'claude-opus-4-1' }),
      env: { TIERGATE_HOOK_DEBUG: '' },
      setup: (h) => {
        mkdirSync(join(h.home, '.claude'), { recursive: true });
        writeFileSync(
          join(h.home, '.claude', 'settings.json'),
          JSON.stringify({
            hooks: {
              PreToolUse: [{ matcher: 'Agent|Task', hooks: [hook('PreToolUse')] }],
              SubagentStop: [{ hooks: [hook('SubagentStop')] }],
              SessionStart: [{ hooks: [hook('SessionStart')] }],
              SessionEnd: [{ hooks: [hook('SessionEnd')] }],
            },
          }),
        );
      },
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    expect(ledger(r.home, 'SELECT harness, action FROM dispatches')).toEqual([{ harness: 'grok', action: 'correct' }]);
    expect(ledger(r.home, 'SELECT harness FROM completions')).toEqual([{ harness: 'grok' }]);
  });
});
