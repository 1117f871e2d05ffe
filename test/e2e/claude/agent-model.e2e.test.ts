/**
 * The model a Claude Code child really runs on (issue 16), against the real binary (pinned 2.1.328) and a fake API on
 * 127.0.0.1. Every assertion is on the model the API received for the child's request (children are told apart by
 * the label in their prompt, `TG-CHILD-TASK <label>:`). One parent message dispatches several Agent calls at once,
 * so each run checks many cases.
 *
 * The first block records what the binary does on its own (docs/claude-code.md, "Which model a child runs on"); the
 * second checks tiergate, on the module path and on the command-hook path, never makes a child pricier than that.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import {
  batchDispatchScript,
  CHILD_MARKER,
  childLabel,
  startFakeAnthropic,
  type FakeAnthropic,
} from '../support/fake-anthropic-api.js';
import {
  commandHooksPlugin,
  makeSandbox,
  runClaude,
  writeAgentFile,
  writeUserSettings,
  type ClaudeSandbox,
} from '../support/claude-run.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { decisionRecord } from '../support/decision-record.js';
import { drainSpool } from '../../../src/collect/drain.js';

const root = join(import.meta.dirname, '../../..');
const bin = harnessBin('claude');
const d = bin.ok ? describe : describe.skip;

type Call = { id: string; input: Record<string, unknown> };
/** An Agent call labelled `label`, foreground (its child runs before the parent's next turn). */
const call = (label: string, subagentType?: string, model?: string): Call => ({
  id: `toolu_${label}`,
  input: {
    description: `e2e ${label}`,
    prompt: `${CHILD_MARKER} ${label}: do the task and report.`,
    ...(subagentType ? { subagent_type: subagentType } : {}),
    run_in_background: false,
    ...(model ? { model } : {}),
  },
});

/** Drains this sandbox's spools into its ledger (as the next CLI run does; SessionEnd already did for the module's) and reads the dispatch rows by agent. */
function dispatchRows(sb: ClaudeSandbox): Record<string, Record<string, unknown>> {
  const env = { TIERGATE_HOME: sb.tiergateHome, HOME: sb.home, CLAUDE_CONFIG_DIR: sb.configDir };
  const db = openLedger(env);
  try {
    drainSpool(db, env);
    const rows = db
      .prepare('SELECT subagent_type, parent_model, action, reason, effective_model FROM dispatches')
      .all() as Array<Record<string, unknown>>;
    return Object.fromEntries(rows.map((r) => [String(r.subagent_type), r]));
  } finally {
    db.close();
  }
}

const diagnostics = (sb: ClaudeSandbox): string => {
  const p = join(sb.tiergateHome, 'data', 'diagnostics.log');
  return existsSync(p) ? readFileSync(p, 'utf8') : '';
};

d('Claude Code 2.1.328: the model a child runs on, and tiergate on top of it', () => {
  let api: FakeAnthropic;
  const claude = bin.ok ? bin.bin : '';

  beforeAll(async () => {
    api = await startFakeAnthropic(batchDispatchScript([]));
  });
  afterAll(async () => {
    await api?.close();
  });

  /** Runs one parent turn dispatching `calls`; returns each child's request model by label, and the errors the parent saw. */
  async function run(
    sb: ClaudeSandbox,
    calls: Call[],
    args: string[],
    opts: { env?: Record<string, string>; retry?: Record<string, Record<string, unknown>> } = {},
  ) {
    api.requests.length = 0;
    api.setScript(batchDispatchScript(calls, { retry: opts.retry }));
    const res = await runClaude(
      claude,
      sb,
      api.url,
      ['-p', 'TG-PARENT: delegate the tasks.', '--output-format', 'json', '--allowedTools', 'Agent', ...args],
      { env: opts.env },
    );
    expect(res.code, res.stderr).toBe(0);
    const kids: Record<string, string[]> = {};
    for (const r of api.requests.filter((q) => q.role === 'child')) (kids[childLabel(r) ?? '?'] ??= []).push(r.model);
    const errors: Record<string, string> = {};
    for (const r of api.requests)
      for (const t of r.toolResults) if (t.is_error) errors[t.tool_use_id.replace(/^toolu_/, '')] = t.text;
    const parent = api.requests.filter((r) => r.role === 'parent-dispatch').map((r) => r.model);
    return { kids, errors, parent, all: api.requests };
  }

  /** One model per child label (a child that ran once). */
  const models = (kids: Record<string, string[]>) =>
    Object.fromEntries(Object.entries(kids).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));

  const O = 'claude-opus-5-5';
  const S = 'claude-sonnet-5-5';
  const H = 'claude-haiku-5-5';
  const F = 'claude-fable-5-2';

  describe('the binary alone (no tiergate)', () => {
    it("agent files: project and user, found by their frontmatter name (subfolders too), project over user, the call's model over the file's; plugin agents as <plugin>:<folder…>:<name>", async () => {
      const sb = makeSandbox();
      const proj = join(sb.project, '.claude', 'agents');
      writeAgentFile(join(proj, 'cheapo.md'), 'cheapo', 'haiku');
      writeAgentFile(join(proj, 'inh.md'), 'inh', 'inherit');
      writeAgentFile(join(proj, 'nom.md'), 'nom');
      writeAgentFile(join(proj, 'dup.md'), 'dup', 'haiku');
      writeAgentFile(join(proj, 'filename.md'), 'realname', 'haiku');
      writeAgentFile(join(proj, 'team', 'nested.md'), 'nested', 'haiku');
      writeAgentFile(join(proj, 'cased.md'), 'cased', 'Haiku');
      mkdirSync(proj, { recursive: true });
      writeFileSync(join(proj, 'nodesc.md'), '---\nname: nodesc\nmodel: haiku\n---\nno description\n');
      writeAgentFile(join(sb.configDir, 'agents', 'ucheap.md'), 'ucheap', 'haiku');
      writeAgentFile(join(sb.configDir, 'agents', 'dup.md'), 'dup', 'sonnet');
      const plugin = join(sb.root, 'pagents');
      mkdirSync(join(plugin, '.claude-plugin'), { recursive: true });
      writeFileSync(
        join(plugin, '.claude-plugin', 'plugin.json'),
        JSON.stringify({ name: 'pagents', version: '0.0.1', description: 'e2e', author: { name: 'e2e' } }),
      );
      writeAgentFile(join(plugin, 'agents', 'file1.md'), 'prev', 'haiku');
      writeAgentFile(join(plugin, 'agents', 'team', 'x.md'), 'prev2', 'haiku');
      const { kids, errors } = await run(
        sb,
        [
          call('a', 'cheapo'),
          call('b', 'ucheap'),
          call('c', 'cheapo', 'sonnet'),
          call('d', 'inh'),
          call('e', 'nom'),
          call('f', 'dup'),
          call('g', 'realname'),
          call('h', 'filename'),
          call('i', 'nested'),
          call('j', 'nodesc'),
          call('k', 'cased'),
          call('l', 'pagents:prev'),
          call('m', 'pagents:team:prev2'),
          call('n', 'pagents:file1'),
          call('o', 'statusline-setup'),
        ],
        ['--plugin-dir', plugin],
      );
      expect(models(kids)).toEqual({ a: H, b: H, c: S, d: O, e: O, f: H, g: H, i: H, k: H, l: H, m: H, o: S });
      // The file name is not the agent's name; a file without a description is no agent at all.
      expect(errors.h).toMatch(/Agent type 'filename' not found/);
      expect(errors.j).toMatch(/Agent type 'nodesc' not found/);
      expect(errors.n).toMatch(/Agent type 'pagents:file1' not found/);
    });

    it('project folders: every .claude/agents from the cwd up to the git root, the nearest wins', async () => {
      const sb = makeSandbox();
      const repo = join(sb.project, 'repo');
      mkdirSync(join(repo, '.git'), { recursive: true });
      writeAgentFile(join(sb.project, '.claude', 'agents', 'above.md'), 'above', 'haiku');
      writeAgentFile(join(repo, '.claude', 'agents', 'up.md'), 'up', 'haiku');
      writeAgentFile(join(repo, '.claude', 'agents', 'near.md'), 'near', 'haiku');
      writeAgentFile(join(repo, 'sub', '.claude', 'agents', 'n2.md'), 'near', 'sonnet');
      const { kids, errors } = await run(
        { ...sb, project: join(repo, 'sub') },
        [call('a', 'up'), call('b', 'near'), call('c', 'above')],
        [],
      );
      expect(models(kids)).toEqual({ a: H, b: S });
      expect(errors.c).toMatch(/Agent type 'above' not found/);
    });

    it("built-in agents inherit the parent (statusline-setup: sonnet); a fork runs on the parent whatever the call says; an agent file's model above the parent runs as written", async () => {
      const sb = makeSandbox();
      writeAgentFile(join(sb.project, '.claude', 'agents', 'deep.md'), 'deep', 'opus');
      const { kids, all } = await run(
        sb,
        [
          call('a', 'general-purpose'),
          call('b', 'Explore'),
          call('c', 'Plan'),
          call('d', 'claude'),
          call('e', 'statusline-setup'),
          call('f', 'deep'),
          call('g'),
          call('h', 'fork', 'haiku'),
        ],
        ['--model', 'sonnet'],
      );
      expect(models(kids)).toEqual({ a: S, b: S, c: S, d: S, e: S, f: O, g: S });
      // The fork's requests carry the parent's conversation (no child label): none of them went to haiku.
      expect(all.map((r) => r.model)).not.toContain(H);
    });

    it('Explore under a parent above opus is capped at opus; Plan inherits', async () => {
      const { kids } = await run(
        makeSandbox(),
        [call('a', 'Explore'), call('b', 'Plan'), call('c', 'general-purpose')],
        ['--model', 'fable'],
      );
      expect(models(kids)).toEqual({ a: O, b: F, c: F });
    });

    it("CLAUDE_CODE_SUBAGENT_MODEL: below the call's model and the agent file's, above inheriting; `model: inherit`, Explore and Plan ignore it", async () => {
      const sb = makeSandbox();
      writeAgentFile(join(sb.project, '.claude', 'agents', 'mid.md'), 'mid', 'sonnet');
      writeAgentFile(join(sb.project, '.claude', 'agents', 'inh.md'), 'inh', 'inherit');
      writeAgentFile(join(sb.project, '.claude', 'agents', 'nom.md'), 'nom');
      const { kids } = await run(
        sb,
        [
          call('a', 'general-purpose'),
          call('b', 'general-purpose', 'opus'),
          call('c', 'mid'),
          call('d', 'inh'),
          call('e', 'nom'),
          call('f', 'Explore'),
          call('g', 'Plan'),
        ],
        [],
        { env: { CLAUDE_CODE_SUBAGENT_MODEL: 'haiku' } },
      );
      expect(models(kids)).toEqual({ a: H, b: O, c: S, d: O, e: H, f: O, g: O });
    });

    it('CLAUDE_CODE_SUBAGENT_MODEL from settings.json `env` counts the same; with CLAUDE_CODE_SUBAGENT_MODEL_FORCE it beats the call and the agent file', async () => {
      const sb = makeSandbox();
      writeUserSettings(sb, { env: { CLAUDE_CODE_SUBAGENT_MODEL: 'haiku' } });
      writeAgentFile(join(sb.project, '.claude', 'agents', 'mid.md'), 'mid', 'sonnet');
      const plain = await run(sb, [call('a', 'general-purpose'), call('b', 'mid')], []);
      expect(models(plain.kids)).toEqual({ a: H, b: S });
      const forced = await run(
        makeSandbox(),
        [call('a', 'general-purpose', 'opus'), call('b', 'mid'), call('c', 'Explore')],
        [],
        { env: { CLAUDE_CODE_SUBAGENT_MODEL: 'haiku', CLAUDE_CODE_SUBAGENT_MODEL_FORCE: '1' } },
      );
      // b: `mid` is not defined in this sandbox -> not found; the forced model covers the rest.
      expect(models(forced.kids)).toEqual({ a: H, c: H });
    });
  });

  describe.each([
    ['module', () => root],
    // A module that fails to load: Claude Code runs the plugin's command hooks alone (seen, 2.1.328).
    ['command hook', () => commandHooksPlugin(root)],
  ] as const)('with tiergate (%s path)', (path, plugin) => {
    it("opus parent (issue 16): an agent file's cheaper model is kept; the default tier applies only to a child that inherits", async () => {
      const sb = makeSandbox();
      writeAgentFile(join(sb.project, '.claude', 'agents', 'cheapo.md'), 'cheapo', 'haiku');
      writeAgentFile(join(sb.project, '.claude', 'agents', 'inh.md'), 'inh', 'inherit');
      writeAgentFile(join(sb.configDir, 'agents', 'ucheap.md'), 'ucheap', 'haiku');
      const { kids, parent } = await run(
        sb,
        [
          call('a', 'cheapo'),
          call('b', 'ucheap'),
          call('c', 'general-purpose'),
          call('d', 'inh'),
          call('e', 'statusline-setup'),
        ],
        ['--plugin-dir', plugin()],
      );
      expect(parent).toEqual([O]);
      expect(models(kids), diagnostics(sb)).toEqual({ a: H, b: H, c: S, d: S, e: S });
      // Decided on the agent's own model: allowed as it is (the ledger says what the child runs on).
      const rows = dispatchRows(sb);
      expect(rows.cheapo).toMatchObject({ action: 'allow', reason: 'within-ceiling', effective_model: 'haiku' });
      expect(rows.ucheap).toMatchObject({ action: 'allow', reason: 'within-ceiling', effective_model: 'haiku' });
      expect(rows['general-purpose']).toMatchObject({
        action: 'correct',
        reason: 'default-tier-applied',
        effective_model: 'sonnet',
      });
    });

    it('sonnet parent: project and user agents on opus are corrected to sonnet; haiku agents stay', async () => {
      const sb = makeSandbox();
      writeAgentFile(join(sb.project, '.claude', 'agents', 'deep.md'), 'deep', 'opus');
      writeAgentFile(join(sb.project, '.claude', 'agents', 'cheapo.md'), 'cheapo', 'haiku');
      writeAgentFile(join(sb.configDir, 'agents', 'udeep.md'), 'udeep', 'opus');
      writeAgentFile(join(sb.configDir, 'agents', 'ucheap.md'), 'ucheap', 'haiku');
      const { kids } = await run(
        sb,
        [call('a', 'deep'), call('b', 'udeep'), call('c', 'cheapo'), call('d', 'ucheap'), call('e', 'Explore')],
        ['--model', 'sonnet', '--plugin-dir', plugin()],
      );
      expect(models(kids), diagnostics(sb)).toEqual({ a: S, b: S, c: H, d: H, e: S });
      const rows = dispatchRows(sb);
      expect(rows.deep).toMatchObject({
        action: 'correct',
        reason: 'over-ceiling-corrected',
        effective_model: 'sonnet',
      });
      expect(rows.udeep).toMatchObject({
        action: 'correct',
        reason: 'over-ceiling-corrected',
        effective_model: 'sonnet',
      });
      expect(rows.cheapo).toMatchObject({ action: 'allow', effective_model: 'haiku' });
      // The decision record: each opus agent file is what the child would have run on, joined by its tool_use id
      // (Explore, inheriting the sonnet parent, is the default tier's correction: its without-tiergate model is the parent's).
      const corrected = decisionRecord({
        TIERGATE_HOME: sb.tiergateHome,
        HOME: sb.home,
        CLAUDE_CONFIG_DIR: sb.configDir,
      }).filter((r) => r.kind === 'correct' && r.without_from !== 'parent');
      expect(corrected).toEqual(
        [1, 2].map(() => ({
          harness: 'claude',
          without_model: 'opus',
          without_from: 'agent-file',
          kind: 'correct',
          to_value: 'sonnet',
          join_method: 'dispatch-id',
          served_model: expect.stringMatching(/sonnet/),
        })),
      );
    });

    it("an installed plugin's agents (local marketplace): the haiku one stays, the opus one is corrected under a sonnet parent", async () => {
      const sb = makeSandbox();
      const market = join(sb.root, 'market');
      mkdirSync(join(market, '.claude-plugin'), { recursive: true });
      writeFileSync(
        join(market, '.claude-plugin', 'marketplace.json'),
        JSON.stringify({
          name: 'local-market',
          owner: { name: 'e2e' },
          plugins: [{ name: 'pagents', source: './plugins/pagents', description: 'e2e' }],
        }),
      );
      const pdir = join(market, 'plugins', 'pagents');
      mkdirSync(join(pdir, '.claude-plugin'), { recursive: true });
      writeFileSync(
        join(pdir, '.claude-plugin', 'plugin.json'),
        JSON.stringify({ name: 'pagents', version: '0.0.1', description: 'e2e', author: { name: 'e2e' } }),
      );
      writeAgentFile(join(pdir, 'agents', 'cheap.md'), 'cheap', 'haiku');
      writeAgentFile(join(pdir, 'agents', 'deep.md'), 'deep', 'opus');
      for (const args of [
        ['plugin', 'marketplace', 'add', market],
        ['plugin', 'install', 'pagents@local-market'],
      ]) {
        const r = await runClaude(claude, sb, api.url, args);
        expect(r.code, r.stdout + r.stderr).toBe(0);
      }
      const { kids } = await run(
        sb,
        [call('a', 'pagents:cheap'), call('b', 'pagents:deep')],
        ['--model', 'sonnet', '--plugin-dir', plugin()],
      );
      expect(models(kids), diagnostics(sb)).toEqual({ a: H, b: S });
    });

    it('CLAUDE_CODE_SUBAGENT_MODEL (settings.json env): a child it puts on haiku stays there', async () => {
      const sb = makeSandbox();
      writeUserSettings(sb, { env: { CLAUDE_CODE_SUBAGENT_MODEL: 'haiku' } });
      const { kids } = await run(sb, [call('a', 'general-purpose'), call('b', 'Plan')], ['--plugin-dir', plugin()]);
      // b (Plan) ignores the variable and inherits opus: the default tier moves it down to sonnet.
      expect(models(kids), diagnostics(sb)).toEqual({ a: H, b: S });
    });

    it('CLAUDE_CODE_SUBAGENT_MODEL_FORCE on a model above the parent: a rewrite would be ignored, so tiergate denies', async () => {
      const sb = makeSandbox();
      const { kids, errors } = await run(
        sb,
        [call('a', 'general-purpose'), call('b', 'general-purpose', 'haiku')],
        ['--model', 'sonnet', '--plugin-dir', plugin()],
        { env: { CLAUDE_CODE_SUBAGENT_MODEL: 'opus', CLAUDE_CODE_SUBAGENT_MODEL_FORCE: '1' } },
      );
      expect(kids.a, diagnostics(sb)).toBeUndefined();
      expect(kids.b).toBeUndefined();
      expect(errors.a).toMatch(/tiergate: .*CLAUDE_CODE_SUBAGENT_MODEL/);
      expect(api.requests.map((r) => r.model)).not.toContain(O);
    });
  });
});
