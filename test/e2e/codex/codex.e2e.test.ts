/**
 * The real Codex CLI (0.169.0, pinned by scripts/install-harnesses.mjs) against a fake Responses API on 127.0.0.1,
 * with tiergate's hooks installed from the shipped manifest. Every assertion is on what the fake API received.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decisionRecord } from '../support/decision-record.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { diagnosticsText, ledgerRows } from '../support/ledger-read.js';
import {
  codexEnv,
  execArgs,
  makeCodexHome,
  runCodex,
  shippedCodexHooks,
  writeCodexConfig,
  writeHooksJson,
  type CodexHome,
} from '../support/codex-run.js';
import {
  delegationScript,
  startFakeResponsesApi,
  type FakeResponsesApi,
  type RecordedRequest,
} from '../support/fake-responses-api.js';

const repo = join(import.meta.dirname, '../../..');
const found = harnessBin('codex');
const bin = found.ok ? found.bin : '';

const spawnArgs = (model: string) => ({
  task_name: 'e2e_child',
  message: 'CHILD_TASK: do the e2e task',
  model,
  reasoning_effort: 'low',
  fork_turns: 'none',
});

type Run = { api: FakeResponsesApi; home: CodexHome; code: number | null; stderr: string };
const homes: CodexHome[] = [];

async function run(opts: {
  parent: string;
  spawn: string;
  retry?: string;
  policy?: Record<string, unknown>;
  env?: Record<string, string>;
  hooks?: unknown;
  setup?: (h: CodexHome, api: FakeResponsesApi) => Promise<void>;
  untrusted?: boolean;
  followup?: boolean;
}): Promise<Run> {
  const api = await startFakeResponsesApi(
    delegationScript({
      spawnArgs: spawnArgs(opts.spawn),
      retryArgs: opts.retry ? spawnArgs(opts.retry) : undefined,
      followup: opts.followup,
    }),
  );
  const home = makeCodexHome();
  homes.push(home);
  writeCodexConfig(home, { apiUrl: api.url, model: opts.parent, plugins: Boolean(opts.setup) });
  if (opts.setup) await opts.setup(home, api);
  else writeHooksJson(home, opts.hooks ?? shippedCodexHooks());
  if (opts.policy) {
    writeFileSync(join(home.project, '.tiergate.json'), JSON.stringify(opts.policy));
    // codexRewrite: true loosens the policy: only a project the user trusts may (src/config/project-layer.ts).
    mkdirSync(join(home.tiergateHome, 'config'), { recursive: true });
    writeFileSync(
      join(home.tiergateHome, 'config', 'config.json'),
      JSON.stringify({ trustedProjects: [home.project] }),
    );
  }
  const args = opts.untrusted
    ? [
        'exec',
        '--skip-git-repo-check',
        '--json',
        '--dangerously-bypass-approvals-and-sandbox',
        'DEMO-PARENT: delegate the task',
      ]
    : execArgs('DEMO-PARENT: delegate the task');
  const r = await runCodex(bin, args, { cwd: home.project, env: codexEnv(home, opts.env), timeoutMs: 90_000 });
  await api.close();
  return { api, home, code: r.code, stderr: r.stderr };
}

/** The package's files as a local marketplace, installed with `codex plugin marketplace add` + `codex plugin add`. */
async function installFromMarketplace(h: CodexHome): Promise<void> {
  const market = join(h.root, 'market');
  mkdirSync(market, { recursive: true });
  // The marketplace as the package ships it: its manifest, whose plugin is the slim payload npm run build makes (the
  // hook bundles, the snapshot and the native SQLite binding the session-end drain loads), nothing else of the package.
  for (const p of ['.agents', 'harness-plugin']) cpSync(join(repo, p), join(market, p), { recursive: true });
  const env = codexEnv(h);
  const add = await runCodex(bin, ['plugin', 'marketplace', 'add', market], { cwd: h.project, env, timeoutMs: 30_000 });
  expect(add.code).toBe(0);
  const inst = await runCodex(bin, ['plugin', 'add', 'tiergate@tiergate'], { cwd: h.project, env, timeoutMs: 30_000 });
  expect(inst.code).toBe(0);
  expect(inst.stdout).toContain('Added plugin `tiergate`');
}

const children = (r: Run): RecordedRequest[] => r.api.requests.filter((q) => q.agentName && q.agentName !== '/root');
const spawnOutput = (r: Run, callId = 'call_spawn_1'): string | undefined =>
  r.api.requests.map((q) => q.outputs[callId]).find((o) => o !== undefined);

/** The ledger after the run: SessionEnd drained tiergate's spool into it. */
const ledger = (h: CodexHome, sql: string) => ledgerRows(h.tiergateHome, sql);
const diagnostics = (h: CodexHome) => diagnosticsText(h.tiergateHome);

describe.skipIf(!found.ok)('Codex CLI end to end', () => {
  beforeAll(() => {
    if (!existsSync(join(repo, 'dist/hook.cjs')))
      throw new Error('dist/hook.cjs missing: run `npm run build` (npm run test:e2e does)');
  });
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it('over the ceiling: the spawn is denied, the model reads the retry, the retry runs on the cheaper model', async () => {
    const r = await run({ parent: 'gpt-6-sol', spawn: 'gpt-6-astra', retry: 'gpt-6-luna' });
    expect(r.code).toBe(0);
    const denied = spawnOutput(r);
    expect(denied).toMatch(
      /^Tool call blocked by PreToolUse hook: tiergate: subagent model gpt-6-astra costs more than your own model gpt-6-sol/,
    );
    expect(denied).toMatch(/Retry the same dispatch with model: "gpt-6-sol"/);
    expect(denied).toMatch(/\. Tool: collaborationspawn_agent$/);
    expect(spawnOutput(r, 'call_spawn_2')).toContain('/root/e2e_child');
    const kids = children(r);
    expect(kids.length).toBeGreaterThan(0);
    expect(kids.map((q) => q.model)).toEqual(kids.map(() => 'gpt-6-luna'));
    expect(
      ledger(r.home, 'SELECT action, requested_model, parent_model, call_id FROM dispatches ORDER BY at, id'),
    ).toEqual([
      { action: 'deny', requested_model: 'gpt-6-astra', parent_model: 'gpt-6-sol', call_id: 'call_spawn_1' },
      { action: 'allow', requested_model: 'gpt-6-luna', parent_model: 'gpt-6-sol', call_id: 'call_spawn_2' },
    ]);
    // The decision record: the denial stays open (no completion); the retry joins its child by the call id.
    const env = { TIERGATE_HOME: r.home.tiergateHome, HOME: r.home.home, CODEX_HOME: r.home.codexHome };
    expect(decisionRecord(env)).toEqual([
      {
        harness: 'codex',
        without_model: 'gpt-6-astra',
        without_from: 'call',
        kind: 'deny',
        to_value: null,
        join_method: null,
        served_model: null,
      },
      {
        harness: 'codex',
        without_model: 'gpt-6-luna',
        without_from: 'call',
        kind: 'allow',
        to_value: null,
        join_method: 'dispatch-id',
        served_model: 'gpt-6-luna',
      },
    ]);
  });

  it('codexRewrite on: the over-ceiling child is corrected and its requests use the parent-tier model', async () => {
    const r = await run({ parent: 'gpt-6-sol', spawn: 'gpt-6-astra', policy: { codexRewrite: true } });
    expect(r.code).toBe(0);
    expect(spawnOutput(r)).toContain('/root/e2e_child');
    const kids = children(r);
    expect(kids.length).toBeGreaterThan(0);
    expect(new Set(kids.map((q) => q.model))).toEqual(new Set(['gpt-6-sol']));
    // The decision record: gpt-6-astra from the call, corrected to the parent tier, the child joined by the call id.
    const env = { TIERGATE_HOME: r.home.tiergateHome, HOME: r.home.home, CODEX_HOME: r.home.codexHome };
    expect(decisionRecord(env)).toEqual([
      {
        harness: 'codex',
        without_model: 'gpt-6-astra',
        without_from: 'call',
        kind: 'correct',
        to_value: 'gpt-6-sol',
        join_method: 'dispatch-id',
        served_model: 'gpt-6-sol',
      },
    ]);
  });

  it('within the ceiling: untouched; the completion lands in the ledger with model, exact usage and cost', async () => {
    const r = await run({ parent: 'gpt-6-sol', spawn: 'gpt-6-luna' });
    expect(r.code).toBe(0);
    expect(spawnOutput(r)).toBe('{"task_name":"/root/e2e_child"}');
    const kids = children(r);
    expect(kids.map((q) => q.model)).toEqual(['gpt-6-luna']);
    // SessionStart's compact policy reached the parent's first request as a developer message.
    expect(
      r.api.requests[0]!.texts.some(
        (t) => t.startsWith('tiergate: a subagent may not cost more than its parent') && t.includes('(gpt-6-sol)'),
      ),
    ).toBe(true);
    // Completion read from the child's rollout at SubagentStop, drained into the ledger at SessionEnd, priced, joined.
    const k = kids[0]!;
    expect(ledger(r.home, 'SELECT action, effective_model FROM dispatches')).toEqual([
      { action: 'allow', effective_model: 'gpt-6-luna' },
    ]);
    const rows = ledger(
      r.home,
      'SELECT harness, status, served_model, input, output, cache_read, reasoning, requests, call_id, dispatch_id, result, verified, cost_pico FROM completions',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      harness: 'codex',
      status: 'ok',
      served_model: 'gpt-6-luna',
      call_id: 'call_spawn_1',
      requests: 1,
      reasoning: 3,
      input: k.usage.input_tokens - k.usage.cached_input_tokens,
      output: k.usage.output_tokens,
      cache_read: k.usage.cached_input_tokens,
      result: 'done',
      verified: 'yes',
    });
    expect(rows[0]!.dispatch_id).not.toBeNull();
    expect(Number(rows[0]!.cost_pico)).toBeGreaterThan(0);
  });

  it('a child sent a follow-up task runs two turns: two completion rows with their own usage, one dispatch', async () => {
    const r = await run({ parent: 'gpt-6-sol', spawn: 'gpt-6-luna', followup: true });
    expect(r.code).toBe(0);
    const kids = children(r);
    expect(kids.map((q) => q.model)).toEqual(['gpt-6-luna', 'gpt-6-luna']);
    const rows = ledger(
      r.home,
      'SELECT turn_id, input, output, cache_read, call_id, dispatch_id, followup, status FROM completions ORDER BY started_at, id',
    );
    expect(rows.map((c) => [c.input, c.output, c.cache_read, c.call_id, c.followup, c.status])).toEqual(
      kids.map((k, i) => [
        k.usage.input_tokens - k.usage.cached_input_tokens,
        k.usage.output_tokens,
        k.usage.cached_input_tokens,
        'call_spawn_1',
        i,
        'ok',
      ]),
    );
    expect(new Set(rows.map((c) => c.turn_id)).size).toBe(2);
    expect(rows[0]!.dispatch_id).not.toBeNull();
    expect(rows[1]!.dispatch_id).toBe(rows[0]!.dispatch_id);
    expect(ledger(r.home, 'SELECT COUNT(*) AS n FROM dispatches')).toEqual([{ n: 1 }]);
  });

  it('a hook fault fails open: oversize stdin and a blown deadline each let the over-ceiling spawn proceed', async () => {
    for (const env of [{ TIERGATE_HOOK_MAX_STDIN: '16' }, { TIERGATE_HOOK_DEADLINE_MS: '1' }] as Record<
      string,
      string
    >[]) {
      const r = await run({ parent: 'gpt-6-sol', spawn: 'gpt-6-astra', env });
      expect(r.code).toBe(0);
      expect(spawnOutput(r)).toBe('{"task_name":"/root/e2e_child"}');
      expect(children(r).map((q) => q.model)).toContain('gpt-6-astra');
      expect(diagnostics(r.home)).toMatch(/hook:codex:PreToolUse/);
      // The denial never reached Codex, so the ledger must not say there was one.
      expect(ledger(r.home, "SELECT action FROM dispatches WHERE action <> 'allow'")).toEqual([]);
    }
  });

  it('evidence: Codex gives command hooks their stdin as a pipe (the thread-free read path, src/hook-runner/core.ts)', async () => {
    const debug = join(mkdtempSync(join(tmpdir(), 'tg-codex-debug-')), 'hook-debug.jsonl');
    const r = await run({ parent: 'gpt-6-sol', spawn: 'gpt-6-luna', env: { TIERGATE_HOOK_DEBUG: debug } });
    expect(r.code).toBe(0);
    const kinds = readFileSync(debug, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; stdin: string });
    expect(kinds.some((k) => k.event === 'PreToolUse')).toBe(true);
    expect([...new Set(kinds.map((k) => k.stdin))]).toEqual(['pipe']);
  });

  it('a broken hook command (missing bundle) fails open too', async () => {
    const r = await run({
      parent: 'gpt-6-sol',
      spawn: 'gpt-6-astra',
      hooks: shippedCodexHooks('/nonexistent/tiergate'),
    });
    expect(r.code).toBe(0);
    expect(children(r).map((q) => q.model)).toContain('gpt-6-astra');
  });

  it("installed through Codex's own marketplace commands: the plugin denies an over-ceiling spawn", async () => {
    const r = await run({
      parent: 'gpt-6-sol',
      spawn: 'gpt-6-astra',
      retry: 'gpt-6-luna',
      setup: installFromMarketplace,
    });
    expect(r.code).toBe(0);
    expect(spawnOutput(r)).toMatch(/^Tool call blocked by PreToolUse hook: tiergate:/);
    expect(children(r).every((q) => q.model === 'gpt-6-luna')).toBe(true);
    // The plugin's cache copy carried node_modules: SessionEnd opened the ledger from there.
    expect(ledger(r.home, 'SELECT action FROM dispatches ORDER BY at, id')).toEqual([
      { action: 'deny' },
      { action: 'allow' },
    ]);
    expect(ledger(r.home, 'SELECT served_model FROM completions')).toEqual([{ served_model: 'gpt-6-luna' }]);
    expect(children(r).length).toBeGreaterThan(0);
  });

  it('installed but not yet trusted (/hooks): Codex skips tiergate silently, which is why the docs require the review', async () => {
    const r = await run({ parent: 'gpt-6-sol', spawn: 'gpt-6-astra', setup: installFromMarketplace, untrusted: true });
    expect(r.code).toBe(0);
    expect(spawnOutput(r)).toBe('{"task_name":"/root/e2e_child"}');
    expect(children(r).map((q) => q.model)).toContain('gpt-6-astra');
    expect(ledger(r.home, 'SELECT id FROM dispatches')).toEqual([]);
    expect(existsSync(join(r.home.tiergateHome, 'data', 'spool'))).toBe(false);
  });

  // The two facts docs/codex.md rests the rewrite decision on; a Codex upgrade that changes either fails here.
  it("evidence: a PreModelRequest answer cannot change a child's model (so correction must happen at PreToolUse)", async () => {
    const r = await run({
      parent: 'gpt-6-sol',
      spawn: 'gpt-6-astra',
      hooks: {
        PreModelRequest: [
          {
            hooks: [
              {
                type: 'command',
                timeout: 10,
                command: `node -e ${JSON.stringify(
                  "const p=JSON.parse(require('fs').readFileSync(0,'utf8'));if(p.agent_id)process.stdout.write(JSON.stringify({model:'gpt-6-luna',decision:'block',reason:'x',hookSpecificOutput:{hookEventName:'PreModelRequest',model:'gpt-6-luna'}}))",
                )}`,
              },
            ],
          },
        ],
      },
    });
    expect(r.code).toBe(0);
    expect(children(r).length).toBeGreaterThan(0);
    expect(children(r).every((q) => q.model === 'gpt-6-astra')).toBe(true);
  });

  it("evidence: tiergate's allow+rewrite does not override another hook's deny", async () => {
    const other = {
      type: 'command',
      timeout: 10,
      command: `node -e ${JSON.stringify(
        "process.stdout.write(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'deny',permissionDecisionReason:'other plugin says no'}}))",
      )}`,
    };
    const ours = (shippedCodexHooks() as { PreToolUse: { matcher: string; hooks: unknown[] }[] }).PreToolUse[0]!;
    const r = await run({
      parent: 'gpt-6-sol',
      spawn: 'gpt-6-astra',
      policy: { codexRewrite: true },
      hooks: { PreToolUse: [{ matcher: ours.matcher, hooks: [...ours.hooks, other] }] },
    });
    expect(r.code).toBe(0);
    expect(spawnOutput(r)).toBe(
      'Tool call blocked by PreToolUse hook: other plugin says no. Tool: collaborationspawn_agent',
    );
    expect(children(r)).toEqual([]);
    // tiergate did answer allow + rewrite for this call (its spool line; no SessionEnd hook here to drain it).
    const spool = join(r.home.tiergateHome, 'data', 'spool');
    const lines = readdirSync(spool)
      .flatMap((f) => readFileSync(join(spool, f), 'utf8').trim().split('\n'))
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.decision?.action, l.decision?.effectiveModel])).toEqual([
      ['dispatch', 'correct', 'gpt-6-sol'],
    ]);
  });
});
