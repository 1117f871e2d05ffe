/**
 * tiergate in the real Claude Code binary (pinned 2.1.328) against a fake Anthropic API on 127.0.0.1. Every assertion
 * is on what the API received (the child's request model) or on the records tiergate wrote.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import {
  CHILD_MARKER,
  dispatchScript,
  startFakeAnthropic,
  type FakeAnthropic,
  type Script,
} from '../support/fake-anthropic-api.js';
import {
  commandHooksPlugin,
  makeSandbox,
  runClaude,
  tiergatePluginCopy,
  writeUserSettings,
  type ClaudeSandbox,
} from '../support/claude-run.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { decisionRecord } from '../support/decision-record.js';
import { drainSpool } from '../../../src/collect/drain.js';

const root = join(import.meta.dirname, '../../..');
const bin = harnessBin('claude');
const d = bin.ok ? describe : describe.skip;

const AGENT_INPUT = (model?: string) => ({
  description: 'tg child task',
  prompt: `${CHILD_MARKER}: do the task and report.`,
  subagent_type: 'general-purpose',
  run_in_background: false,
  ...(model ? { model } : {}),
});

type Spooled = { type: string; observation: Record<string, any>; decision?: Record<string, any> };

/** Every record tiergate spooled in this sandbox: the common spool (jsonl) plus undrained module records. */
function spooled(sb: ClaudeSandbox): Spooled[] {
  const out: Spooled[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, name.name);
      if (name.isDirectory()) walk(p);
      else if (name.name.endsWith('.jsonl'))
        for (const l of readFileSync(p, 'utf8').split('\n'))
          if (l.trim()) out.push(JSON.parse(l));
          else if (name.name.endsWith('.json')) {
            const body = JSON.parse(readFileSync(p, 'utf8'));
            if (body.record) out.push(body.record);
          }
    }
  };
  walk(join(sb.tiergateHome, 'data', 'spool'));
  return out;
}

function diagnostics(sb: ClaudeSandbox): string {
  const p = join(sb.tiergateHome, 'data', 'diagnostics.log');
  return existsSync(p) ? readFileSync(p, 'utf8') : '';
}

/** Drains this sandbox's spools into its ledger (as the next CLI run does) and reads what landed. */
function ledgerRows(sb: ClaudeSandbox) {
  const env = { TIERGATE_HOME: sb.tiergateHome, HOME: sb.home, CLAUDE_CONFIG_DIR: sb.configDir };
  const db = openLedger(env);
  try {
    drainSpool(db, env);
    return {
      dispatches: db
        .prepare('SELECT call_id, parent_model, parent_model_source, action, reason, effective_model FROM dispatches')
        .all() as Array<Record<string, unknown>>,
      completions: db
        .prepare(
          'SELECT call_id, served_model, input, output, cache_read, result, verified, cost_pico FROM completions',
        )
        .all() as Array<Record<string, unknown>>,
    };
  } finally {
    db.close();
  }
}

/** What Claude Code 2.1.328 connects a command hook's stdin to (seen: the evidence test below). */
const STDIN_SEEN = 'socket';

const childRequests = (api: FakeAnthropic) => api.requests.filter((r) => r.role === 'child');

d('Claude Code end to end', () => {
  let api: FakeAnthropic;
  const claude = bin.ok ? bin.bin : '';

  beforeAll(async () => {
    api = await startFakeAnthropic(dispatchScript(AGENT_INPUT('opus')));
  });
  afterAll(async () => {
    await api?.close();
  });

  async function run(
    script: Script,
    args: string[],
    opts: { env?: Record<string, string>; settings?: Record<string, unknown>; sb?: ClaudeSandbox } = {},
  ) {
    api.requests.length = 0;
    api.setScript(script);
    const sb = opts.sb ?? makeSandbox();
    if (opts.settings) writeUserSettings(sb, opts.settings);
    const res = await runClaude(
      claude,
      sb,
      api.url,
      ['-p', 'TG-PARENT: delegate the task.', '--output-format', 'json', '--allowedTools', 'Agent', ...args],
      { env: opts.env },
    );
    return { sb, res };
  }

  const pluginCopy = (patchModule?: (src: string) => string) => tiergatePluginCopy(root, patchModule);
  const brokenModule = () => commandHooksPlugin(root);

  it('(1)+(7) module path: a haiku parent dispatching opus -> the child runs on haiku; decided once; completion spooled', async () => {
    const { sb, res } = await run(
      dispatchScript(AGENT_INPUT('opus'), { childServedModel: 'claude-haiku-5-5-served' }),
      ['--model', 'haiku', '--plugin-dir', root],
    );
    expect(res.code, res.stderr).toBe(0);
    const kids = childRequests(api);
    expect(kids.length).toBe(1);
    expect(kids[0]!.model).toBe('claude-haiku-5-5');
    // SessionEnd moved the module's records through the spool into the ledger: decided once, joined exactly.
    expect(
      existsSync(join(sb.tiergateHome, 'data', 'spool', 'claude-module'))
        ? readdirSync(join(sb.tiergateHome, 'data', 'spool', 'claude-module')).filter((n) => n.endsWith('.json'))
        : [],
    ).toEqual([]);
    expect(JSON.stringify(spooled(sb))).not.toContain(CHILD_MARKER);
    const l = ledgerRows(sb);
    expect(l.dispatches).toEqual([
      expect.objectContaining({
        parent_model: 'claude-haiku-5-5',
        parent_model_source: 'agent.spawn',
        action: 'correct',
        effective_model: 'haiku',
      }),
    ]);
    // (7) the module's turn.complete record: the served id and the API's own numbers.
    const u = kids[0]!.usage;
    expect(l.completions).toEqual([
      expect.objectContaining({
        call_id: l.dispatches[0]!.call_id,
        served_model: 'claude-haiku-5-5-served',
        input: u.input_tokens,
        output: u.output_tokens,
        cache_read: u.cache_read_input_tokens,
        result: 'done',
        verified: 'yes',
      }),
    ]);
    // The served id is one no catalog lists: unpriced (NULL), never $0.
    expect(l.completions[0]!.cost_pico).toBeNull();
    // The decision record: opus from the call, corrected to haiku, joined by the tool_use id (issue 29).
    expect(decisionRecord({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.home, CLAUDE_CONFIG_DIR: sb.configDir })).toEqual([
      {
        harness: 'claude',
        without_model: 'opus',
        without_from: 'call',
        kind: 'correct',
        to_value: 'haiku',
        join_method: 'dispatch-id',
        served_model: 'claude-haiku-5-5-served',
      },
    ]);
  });

  it('(2)+(7) module did not load -> the PreToolUse command hook corrects it from the parent transcript', async () => {
    const { sb, res } = await run(dispatchScript(AGENT_INPUT('opus')), [
      '--model',
      'haiku',
      '--plugin-dir',
      brokenModule(),
    ]);
    expect(res.code, res.stderr).toBe(0);
    const kids = childRequests(api);
    expect(
      kids.map((k) => k.model),
      diagnostics(sb),
    ).toEqual(['claude-haiku-5-5']);
    const records = spooled(sb);
    const dispatches = records.filter((r) => r.type === 'dispatch');
    expect(dispatches.length).toBe(1);
    expect(dispatches[0]!.observation.parentModel).toBe('claude-haiku-5-5');
    expect(dispatches[0]!.observation.parentModelSource).toMatch(/^transcript-tail/);
    expect(dispatches[0]!.decision!.action).toBe('correct');
    const completions = records.filter((r) => r.type === 'completion');
    expect(completions.length).toBe(1);
    expect(completions[0]!.observation.servedModel).toBe('claude-haiku-5-5');
    expect(completions[0]!.observation.callId).toBe(dispatches[0]!.observation.callId);
    expect(completions[0]!.observation.usage).toMatchObject({
      input: kids[0]!.usage.input_tokens,
      output: kids[0]!.usage.output_tokens,
    });
    // The command hook's decision record: the same as the module's, joined by the tool_use id (issue 29).
    expect(decisionRecord({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.home, CLAUDE_CONFIG_DIR: sb.configDir })).toEqual([
      {
        harness: 'claude',
        without_model: 'opus',
        without_from: 'call',
        kind: 'correct',
        to_value: 'haiku',
        join_method: 'dispatch-id',
        served_model: 'claude-haiku-5-5',
      },
    ]);
  });

  it('(3) within the ceiling -> untouched, and decided exactly once', async () => {
    const { sb, res } = await run(dispatchScript(AGENT_INPUT('sonnet')), ['--plugin-dir', root]);
    expect(res.code, res.stderr).toBe(0);
    expect(childRequests(api).map((k) => k.model)).toEqual(['claude-sonnet-5-5']);
    // Decided exactly once: one dispatch row whichever path (module or command hook) saw it.
    expect(ledgerRows(sb).dispatches).toEqual([expect.objectContaining({ action: 'allow', reason: 'within-ceiling' })]);
  });

  it('(1b) module path deny: no legal choice within the ceiling -> denied with a retry the model follows', async () => {
    // A tier map whose every tier is pricier than the haiku parent: nothing to correct to, so the module denies.
    const sb = makeSandbox();
    writeFileSync(
      join(sb.project, '.tiergate.json'),
      JSON.stringify({ tiers: { claude: { cheap: 'sonnet', standard: 'sonnet', premium: 'opus', parent: 'sonnet' } } }),
    );
    // Pricier tiers loosen the policy: only a project the user trusts may map them (src/config/project-layer.ts).
    mkdirSync(join(sb.tiergateHome, 'config'), { recursive: true });
    writeFileSync(join(sb.tiergateHome, 'config', 'config.json'), JSON.stringify({ trustedProjects: [sb.project] }));
    const retry = AGENT_INPUT('haiku');
    const { res } = await run(
      dispatchScript(AGENT_INPUT('opus'), { retryOnError: retry }),
      ['--model', 'haiku', '--plugin-dir', root],
      { sb },
    );
    expect(res.code, res.stderr).toBe(0);
    const after = api.requests.find((r) => r.role === 'parent-after-tool' && r.toolResults.some((t) => t.is_error));
    expect(after?.toolResults.find((t) => t.is_error)?.text).toMatch(/Subagent spawn denied by a plugin: tiergate:/);
    // The denied request never ran; the retry (haiku) did.
    expect(childRequests(api).map((k) => k.model)).toEqual(['claude-haiku-5-5']);
  });

  it('(5a) a module fault at agent.spawn fails open: the dispatch proceeds unchanged', async () => {
    const dir = pluginCopy((src) =>
      src.replace(
        'on("agent.spawn",async($,e,next)=>{',
        'on("agent.spawn",async($,e,next)=>{throw new Error("tiergate e2e: spawn fault");',
      ),
    );
    expect(readFileSync(join(dir, 'dist', 'claude-module.js'), 'utf8')).toContain('spawn fault');
    const { res } = await run(dispatchScript(AGENT_INPUT('opus')), ['--model', 'haiku', '--plugin-dir', dir]);
    expect(res.code, res.stderr).toBe(0);
    expect(childRequests(api).map((k) => k.model)).toEqual(['claude-opus-5-5']);
  });

  it('(5b) a hook fault (oversize stdin) and a malformed config fail open with a diagnostic', async () => {
    const sb = makeSandbox();
    writeFileSync(join(sb.project, '.tiergate.json'), '{ not json');
    const { res } = await run(
      dispatchScript(AGENT_INPUT('opus')),
      ['--model', 'haiku', '--plugin-dir', brokenModule()],
      { sb, env: { TIERGATE_HOOK_MAX_STDIN: '16' } },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(childRequests(api).map((k) => k.model)).toEqual(['claude-opus-5-5']);
    expect(diagnostics(sb)).toMatch(/stdin larger than 16 bytes/);
  });

  it('evidence: Claude Code gives command hooks their stdin as a socket (the pooled read path, src/hook-runner/core.ts)', async () => {
    const sb = makeSandbox();
    const debug = join(sb.tiergateHome, 'hook-debug.jsonl');
    const { res } = await run(
      dispatchScript(AGENT_INPUT('opus')),
      ['--model', 'haiku', '--plugin-dir', brokenModule()],
      { sb, env: { TIERGATE_HOOK_DEBUG: debug } },
    );
    expect(res.code, res.stderr).toBe(0);
    const kinds = readFileSync(debug, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; stdin: string });
    const pre = kinds.filter((k) => k.event === 'PreToolUse');
    expect(pre.length).toBeGreaterThan(0);
    expect([...new Set(kinds.map((k) => k.stdin))]).toEqual([STDIN_SEEN]);
  });

  it('(6) installed from a local marketplace (claude plugin marketplace add / install) -> corrects', async () => {
    const sb = makeSandbox();
    // The marketplace as the package ships it: its manifest, whose plugin is the slim payload npm run build makes.
    const market = join(makeSandbox('tg-market-').root, 'tiergate');
    for (const p of ['.claude-plugin', 'harness-plugin']) cpSync(join(root, p), join(market, p), { recursive: true });
    const env = { env: {} };
    const add = await runClaude(claude, sb, api.url, ['plugin', 'marketplace', 'add', market], env);
    expect(add.code, add.stdout + add.stderr).toBe(0);
    const inst = await runClaude(claude, sb, api.url, ['plugin', 'install', 'tiergate@tiergate'], env);
    expect(inst.code, inst.stdout + inst.stderr).toBe(0);
    const { res } = await run(dispatchScript(AGENT_INPUT('opus')), ['--model', 'haiku'], { sb });
    expect(res.code, res.stderr).toBe(0);
    expect(childRequests(api).map((k) => k.model)).toEqual(['claude-haiku-5-5']);
    // The payload carries the SQLite binding, so the session-end hook drained the spool into the ledger (a copy of
    // dist/ alone could not open it, and left the records in the spool).
    expect(spooled(sb).filter((r) => r.type === 'dispatch')).toEqual([]);
    expect(
      ledgerRows(sb).dispatches.map((r) => r.parent_model_source),
      diagnostics(sb),
    ).toEqual(['agent.spawn']);
  });
});
