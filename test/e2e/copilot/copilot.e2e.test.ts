/**
 * The real GitHub Copilot CLI (1.0.102) in BYOK mode against a fake chat-completions API on 127.0.0.1, with tiergate
 * loaded as a plugin (`--plugin-dir` this checkout: .plugin/plugin.json -> hooks-copilot.json -> dist/hook.cjs) or
 * installed through Copilot's own plugin commands. Every assertion is on what the fake API received (the model each
 * child request named, the tool result the parent model read) and what tiergate recorded.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decisionRecord } from '../support/decision-record.js';
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
import {
  copilotEnv,
  makeCopilotHome,
  promptArgs,
  REPO,
  writeAgent,
  writeHooks,
  type CopilotHome,
} from './copilot-run.js';
import { runInProject } from '../support/sandbox.js';

const found = harnessBin('copilot');
const bin = found.ok ? found.bin : '';

const PARENT = 'gpt-5.4';
const CHILD_USAGE: ScriptedUsage = { prompt: 2100, completion: 210, cached: 600 };
const task = (extra: Record<string, unknown> = {}) => ({
  name: 'e2e-child',
  description: 'e2e child task',
  prompt: 'E2E-CHILD: do the task and report.',
  agent_type: 'general-purpose',
  ...extra,
});

/** The fake model: the parent dispatches `first`; after a denial it dispatches `retry` (once); the child answers. */
function responder(first: Record<string, unknown>, retry?: Record<string, unknown>): (req: RecordedRequest) => Reply {
  let retried = false;
  return (req) => {
    if (req.headers['x-interaction-type'] === 'conversation-subagent')
      return { text: 'E2E child finished.\nResult: done\nVerified: yes', usage: CHILD_USAGE };
    const last = lastMessage(req);
    if (last?.role !== 'tool')
      return {
        toolCalls: [{ name: 'task', id: 'call_e2e_1', args: first }],
        usage: { prompt: 3000, completion: 30, cached: 1000 },
      };
    if (retry && !retried && contentText(last.content).startsWith('Denied by preToolUse hook')) {
      retried = true;
      return { toolCalls: [{ name: 'task', id: 'call_e2e_2', args: retry }], usage: { prompt: 3100, completion: 31 } };
    }
    return { text: 'PARENT_FINAL', usage: { prompt: 3200, completion: 32 } };
  };
}

type Run = { api: FakeChatApi; home: CopilotHome; code: number | null; stderr: string };
const homes: CopilotHome[] = [];

async function run(o: {
  first: Record<string, unknown>;
  retry?: Record<string, unknown>;
  config?: unknown;
  env?: Record<string, string>;
  setup?: (h: CopilotHome, env: NodeJS.ProcessEnv) => Promise<void> | void;
  pluginDir?: boolean;
  /** A home an earlier run made, to run in again. */
  home?: CopilotHome;
}): Promise<Run> {
  const api = await startFakeChatApi(responder(o.first, o.retry));
  const home = o.home ?? makeCopilotHome(o.config);
  if (!o.home) homes.push(home);
  const env = copilotEnv(home, { apiUrl: api.baseURL, model: PARENT }, o.env);
  await o.setup?.(home, env);
  const r = await runInProject(
    bin,
    promptArgs('E2E-PARENT: delegate the task.', o.pluginDir === false ? [] : ['--plugin-dir', REPO]),
    home,
    env,
  );
  await api.close();
  return { api, home, code: r.code, stderr: r.stderr };
}

const children = (r: Run) => r.api.requests.filter((q) => q.headers['x-interaction-type'] === 'conversation-subagent');
const toolResults = (r: Run) => toolResultsById(r.api.requests);

const ledger = (h: CopilotHome, sql: string) => ledgerRows(h.tiergateHome, sql);
const diagnostics = (h: CopilotHome) => diagnosticsText(h.tiergateHome);

/** tiergate's own CLI in the run's sandbox (it drains what the hooks recorded first). */
const cliOptions = (h: CopilotHome, env: NodeJS.ProcessEnv) => ({
  encoding: 'utf8' as const,
  cwd: h.project,
  env: {
    PATH: process.env.PATH,
    HOME: h.home,
    COPILOT_HOME: h.copilotHome,
    TIERGATE_HOME: h.tiergateHome,
    TIERGATE_PRICE_REFRESH: 'off',
    ...env,
  },
});
function cli(h: CopilotHome, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(process.execPath, [join(REPO, 'dist/cli.js'), ...args], cliOptions(h, env));
}

/** The same, for a command whose exit code says something else (doctor exits 1 on any error finding). */
function cliOut(h: CopilotHome, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return spawnSync(process.execPath, [join(REPO, 'dist/cli.js'), ...args], cliOptions(h, env)).stdout;
}

/** The shipped hooks file with its plugin root replaced (what Copilot does for a plugin). */
const shippedHooks = (root: string) =>
  JSON.parse(readFileSync(join(REPO, 'hooks-copilot.json'), 'utf8').replaceAll('${PLUGIN_ROOT}', root)) as unknown;

describe.skipIf(!found.ok)('GitHub Copilot CLI 1.0.102 end to end', () => {
  beforeAll(() => {
    if (!existsSync(join(REPO, 'dist/hook.cjs')))
      throw new Error('dist/hook.cjs missing: run `npm run build` (npm run test:e2e does)');
  });
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it("over the ceiling: the call's pricier model is corrected, the child requests the parent tier's model", async () => {
    const r = await run({ first: task({ model: 'claude-opus-4.8' }) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const kids = children(r);
    expect(kids.length).toBeGreaterThan(0);
    expect(kids.map((q) => q.model)).toEqual(kids.map(() => PARENT));
    expect(toolResults(r).call_e2e_1).toContain('E2E child finished.');
    expect(
      ledger(r.home, 'SELECT action, reason, requested_model, parent_model, effective_model, call_id FROM dispatches'),
    ).toEqual([
      {
        action: 'correct',
        reason: 'over-ceiling-corrected',
        requested_model: 'claude-opus-4.8',
        parent_model: PARENT,
        effective_model: PARENT,
        call_id: 'call_e2e_1',
      },
    ]);
    // The decision record: the call's model is what the child would have run on; its child joins by the call id.
    const env = { TIERGATE_HOME: r.home.tiergateHome, HOME: r.home.home, COPILOT_HOME: r.home.copilotHome };
    expect(decisionRecord(env)).toEqual([
      {
        harness: 'copilot',
        without_model: 'claude-opus-4.8',
        without_from: 'call',
        kind: 'correct',
        to_value: PARENT,
        join_method: 'dispatch-id',
        served_model: PARENT,
      },
    ]);
  });

  it("an agent defined on a pricier model is caught; report --json has the child's usage and served model", async () => {
    const r = await run({
      first: task({ agent_type: 'pricey' }),
      setup: (h) => writeAgent(h, 'pricey', 'claude-opus-4.8'),
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    const report = JSON.parse(cli(r.home, ['report', '--json', '--harness', 'copilot'])) as {
      rows: Array<Record<string, any>>;
    };
    const row = report.rows.find((x) => x.group === 'pricey');
    expect(row).toMatchObject({
      runs: 1,
      dispatches: 1,
      completed: 1,
      pending: 0,
      verified: 1,
      corrected: 1,
      // Issue 29: the pair reads what the agent would have run on -> what ran, the correction beside it.
      models: [{ requested: 'claude-opus-4.8', served: PARENT, runs: 1, corrected: 1 }],
      correctedTo: [{ value: PARENT, runs: 1 }],
      savedEstimatedRuns: 0,
      // Copilot's inputTokens is the wire's prompt_tokens, cached reads included: tiergate's input excludes them.
      tokens: {
        input: CHILD_USAGE.prompt - CHILD_USAGE.cached!,
        output: CHILD_USAGE.completion,
        cacheRead: CHILD_USAGE.cached,
      },
    });
    expect(Number(row!.cost.pico)).toBeGreaterThan(0);
    // A correction by the agent file's model saves: the usage at claude-opus-4.8's rates less what it cost.
    expect(BigInt(row!.saved.pico)).toBeGreaterThan(0n);
    expect(
      ledger(
        r.home,
        'SELECT status, agent_id IS NOT NULL AS has_agent, dispatch_id IS NOT NULL AS joined FROM completions',
      ),
    ).toEqual([{ status: 'ok', has_agent: 1, joined: 1 }]);
    expect(
      decisionRecord({ TIERGATE_HOME: r.home.tiergateHome, HOME: r.home.home, COPILOT_HOME: r.home.copilotHome }),
    ).toEqual([
      {
        harness: 'copilot',
        without_model: 'claude-opus-4.8',
        without_from: 'agent-file',
        kind: 'correct',
        to_value: PARENT,
        join_method: 'dispatch-id',
        served_model: PARENT,
      },
    ]);
    // Premium-request multipliers: offline (BYOK) Copilot reports none. Every usage record the binary wrote says
    // cost 0 and isByok true, so no multiplier is stored, reported or learned (docs/copilot-cli.md, Pricing).
    // session-state also holds a `.session-operation-locks` folder (seen): only session folders have events.jsonl.
    const files = readdirSync(join(r.home.copilotHome, 'session-state'))
      .map((sid) => join(r.home.copilotHome, 'session-state', sid, 'events.jsonl'))
      .filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThan(0);
    const usage = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"session.usage_record"'))
        .map((l) => (JSON.parse(l) as { data: { usage: Record<string, unknown> } }).data.usage),
    );
    expect(usage.length).toBeGreaterThanOrEqual(2);
    expect(usage.map((u) => [u.cost, u.isByok])).toEqual(usage.map(() => [0, true]));
    expect(ledger(r.home, 'SELECT multiplier FROM completions')).toEqual([{ multiplier: null }]);
    expect(row!.multiplier).toBeUndefined();
    expect(existsSync(join(r.home.tiergateHome, 'data', 'copilot-multipliers.json'))).toBe(false);
  });

  it('the agent index: kept once the agent files are settled; an agent file changed after it is read again', async () => {
    // src/agent-files/agent-index.ts keeps nothing changed within RACY_MS (5 s) of its read: a user's agent files were
    // written long before the dispatch, so this run's are left to settle first.
    const first = await run({
      first: task({ agent_type: 'pricey' }),
      setup: async (h) => {
        writeAgent(h, 'pricey', 'claude-opus-4.8');
        await new Promise((r) => setTimeout(r, 5_500));
      },
    });
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    expect(children(first).map((q) => q.model)).toEqual([PARENT]);
    const pricey = join(first.home.copilotHome, 'agents', 'pricey.agent.md');
    const indexFile = join(first.home.tiergateHome, 'data', 'copilot-agents.json');
    const read = () =>
      JSON.parse(readFileSync(indexFile, 'utf8')) as {
        dirs: Record<string, unknown[]>;
        files: Record<string, unknown[]>;
      };
    expect(statSync(indexFile).mode & 0o777).toBe(0o600);
    const st = statSync(pricey);
    expect(read().files[pricey]?.slice(0, 5)).toEqual([st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs]);
    expect(JSON.stringify(read().files[pricey]?.[6])).toContain('claude-opus-4.8');
    // Repinned to a cheaper model: the kept entry no longer matches, the file is read again, and the dispatch runs as
    // asked (a stale entry would have corrected it to the parent's model).
    writeAgent(first.home, 'pricey', 'gpt-5.4-mini');
    const second = await run({ first: task({ agent_type: 'pricey' }), home: first.home });
    expect(second.code, second.stderr.slice(-2000)).toBe(0);
    expect(children(second).map((q) => q.model)).toEqual(['gpt-5.4-mini']);
    expect(read().files[pricey]).toBeUndefined();
  }, 120_000);

  it("nothing cheaper fits: denied, the model reads the reason, and its retry runs on the parent's model", async () => {
    const r = await run({
      first: task({ model: 'cross-model' }),
      retry: task(),
      // Cheaper input, pricier output: no tier (the parent's own model included) is within both ceilings.
      config: { priceOverrides: { 'cross-model': { input: '0.1', output: '100' } } },
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const denied = toolResults(r).call_e2e_1;
    expect(denied).toMatch(
      /^Denied by preToolUse hook: tiergate: subagent model cross-model costs more than your own model gpt-5\.4 \(output \$100\/M vs \$15\/M\)/,
    );
    expect(denied).toMatch(/Retry the same dispatch without model/);
    expect(toolResults(r).call_e2e_2).toContain('E2E child finished.');
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    // The retry names no model: the default tier (standard, gpt-5.4, capped by the parent) is written in.
    expect(ledger(r.home, 'SELECT action, reason FROM dispatches ORDER BY at, id')).toEqual([
      { action: 'deny', reason: 'over-ceiling-denied' },
      { action: 'correct', reason: 'default-tier-applied' },
    ]);
  });

  it('within the ceiling: untouched, the child on the model it asked for', async () => {
    const r = await run({ first: task({ model: 'gpt-5.4-mini' }) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual(['gpt-5.4-mini']);
    expect(ledger(r.home, 'SELECT action, reason FROM dispatches')).toEqual([
      { action: 'allow', reason: 'within-ceiling' },
    ]);
    // Copilot 1.0.102 writes events.jsonl behind its hooks: at sessionEnd the child's usage may not be there yet and
    // the run stays pending until the next drain (README: "settled once the session ends"). The CLI drains first.
    cli(r.home, ['report', '--json', '--harness', 'copilot']);
    expect(ledger(r.home, 'SELECT status, served_model FROM completions')).toEqual([
      { status: 'ok', served_model: 'gpt-5.4-mini' },
    ]);
  });

  it('a crashing hook (its bundle missing) lets the dispatch through: exit 0, never the exit 1 Copilot takes as a denial', async () => {
    const r = await run({
      first: task({ model: 'claude-opus-4.8' }),
      pluginDir: false,
      setup: (h) => writeHooks(h, 'tiergate', shippedHooks('/nonexistent/tiergate')),
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(toolResults(r).call_e2e_1).toContain('E2E child finished.');
    expect(children(r).map((q) => q.model)).toEqual(['claude-opus-4.8']);
  });

  it("a hook that hangs past Copilot's timeoutSec lets the dispatch through unchanged", async () => {
    const hooks = shippedHooks(REPO) as {
      version: number;
      hooks: Record<string, { bash: string; timeoutSec: number }[]>;
    };
    const pre = hooks.hooks.preToolUse![0]!;
    // A tiergate stuck before it could answer (a hung file system, a stopped process): Copilot cuts it at timeoutSec.
    hooks.hooks.preToolUse = [{ ...pre, bash: `sleep 30; ${pre.bash}`, timeoutSec: 2 }];
    const r = await run({
      first: task({ model: 'claude-opus-4.8' }),
      pluginDir: false,
      setup: (h) => writeHooks(h, 'tiergate', hooks),
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(toolResults(r).call_e2e_1).toContain('E2E child finished.');
    expect(children(r).map((q) => q.model)).toEqual(['claude-opus-4.8']);
  });

  it('a hook past its deadline lets the dispatch through unchanged and says so in the log', async () => {
    const r = await run({ first: task({ model: 'claude-opus-4.8' }), env: { TIERGATE_HOOK_DEADLINE_MS: '1' } });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(toolResults(r).call_e2e_1).toContain('E2E child finished.');
    expect(children(r).map((q) => q.model)).toEqual(['claude-opus-4.8']);
    expect(diagnostics(r.home)).toMatch(/hook:copilot:preToolUse/);
    expect(ledger(r.home, "SELECT action FROM dispatches WHERE action <> 'allow'")).toEqual([]);
  });

  it("installed by `tiergate install copilot --run` (Copilot's own plugin commands): corrects; uninstall leaves no settings.json", async () => {
    const r = await run({
      first: task({ agent_type: 'pricey' }),
      pluginDir: false,
      setup: (h, env) => {
        writeAgent(h, 'pricey', 'claude-opus-4.8');
        const out = cli(h, ['install', 'copilot', '--run'], { ...env, TIERGATE_COPILOT_BIN: bin } as Record<
          string,
          string
        >);
        expect(out).toMatch(/copilot/);
        expect(JSON.parse(readFileSync(join(h.copilotHome, 'settings.json'), 'utf8'))).toMatchObject({
          enabledPlugins: { 'tiergate@tiergate': true },
        });
        const doctor = JSON.parse(cliOut(h, ['doctor', '--json'], env)) as {
          checks: { name: string; status: string; detail: string }[];
        };
        expect(doctor.checks.find((c) => c.name === 'copilot')).toMatchObject({
          status: 'ok',
          detail: expect.stringContaining(`loaded live from ${REPO}`),
        });
      },
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).map((q) => q.model)).toEqual([PARENT]);
    const env = copilotEnv(r.home, { apiUrl: 'http://127.0.0.1:9/v1', model: PARENT }, { TIERGATE_COPILOT_BIN: bin });
    cli(r.home, ['uninstall', 'copilot', '--run'], env as Record<string, string>);
    expect(existsSync(join(r.home.copilotHome, 'settings.json'))).toBe(false);
  });
});
