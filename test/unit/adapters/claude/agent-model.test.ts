/**
 * Issue 16 on both Claude paths: the child's model as Claude Code resolves it (call > agent file > CLAUDE_CODE_SUBAGENT_MODEL
 * > parent) is what tiergate decides on. The command hook is replayed from recorded payloads with agent files on disk;
 * the hooks module (dist/claude-module.js) runs in a vm shaped like its runtime with a `$` whose files are in memory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { loadModuleHooks, type Hook } from './module-vm.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { diagnosticsLog, fixture, hook, sandbox, spool, stageTranscript, type Sandbox } from './support.js';

const root = join(import.meta.dirname, '../../../..');

const agent = (name: string, model?: string) =>
  `---\nname: ${name}\ndescription: test agent\n${model !== undefined ? `model: ${model}\n` : ''}---\nYou are ${name}.\n`;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe('command hook (PreToolUse)', () => {
  /** A dispatch of `subagentType` with no model, under the opus parent of basic, or the sonnet parent of parent-sonnet. */
  function dispatch(sb: Sandbox, subagentType: string, parent: 'opus' | 'sonnet') {
    const p = fixture(parent === 'opus' ? 'PreToolUse.nomodel.json' : 'PreToolUse.parent-sonnet.json');
    p.cwd = sb.project;
    p.transcript_path = stageTranscript(
      sb,
      parent === 'opus' ? 'basic.parent.at-PreToolUse.jsonl' : 'parent-sonnet.parent.at-PreToolUse.jsonl',
      'parent.jsonl',
    );
    const { model: _drop, ...input } = p.tool_input as Record<string, unknown>;
    p.tool_input = { ...input, subagent_type: subagentType };
    return p;
  }
  function gitSandbox(): Sandbox {
    const sb = sandbox();
    // The project is its own git root: the upward walk for .claude/agents stops there.
    mkdirSync(join(sb.project, '.git'), { recursive: true });
    return sb;
  }
  const answer = (out: { answer: { stdout?: string } | null }) =>
    out.answer?.stdout ? JSON.parse(out.answer.stdout).hookSpecificOutput : null;
  const record = (sb: Sandbox) => {
    const recs = spool(sb).filter((r) => r.type === 'dispatch');
    expect(recs.length).toBe(1);
    return recs[0] as Extract<(typeof recs)[number], { type: 'dispatch' }>;
  };

  it('issue 16: a project agent on haiku under an opus parent is left on haiku (no default tier written over it)', async () => {
    const sb = gitSandbox();
    write(join(sb.project, '.claude/agents/cheapo.md'), agent('cheapo', 'haiku'));
    const out = await hook(sb, 'PreToolUse', dispatch(sb, 'cheapo', 'opus'));
    expect(out.failed).toBeNull();
    expect(answer(out)).toBeNull();
    const rec = record(sb);
    expect(rec.observation).toMatchObject({
      requestedModel: null,
      agentModel: 'haiku',
      agentModelFrom: '.claude/agents/cheapo.md',
      subagentType: 'cheapo',
    });
    expect(rec.decision).toMatchObject({ action: 'allow', reason: 'within-ceiling', effectiveModel: 'haiku' });
  });

  it('a user agent on haiku ($HOME/.claude/agents, or $CLAUDE_CONFIG_DIR/agents) is left on haiku too', async () => {
    const sb = gitSandbox();
    write(join(sb.env.HOME!, '.claude/agents/ucheap.md'), agent('ucheap', 'haiku'));
    expect(answer(await hook(sb, 'PreToolUse', dispatch(sb, 'ucheap', 'opus')))).toBeNull();
    const sb2 = gitSandbox();
    const configDir = join(sb2.dir, 'elsewhere');
    write(join(configDir, 'agents/ucheap.md'), agent('ucheap', 'haiku'));
    expect(
      answer(await hook(sb2, 'PreToolUse', dispatch(sb2, 'ucheap', 'opus'), { CLAUDE_CONFIG_DIR: configDir })),
    ).toBeNull();
    expect(record(sb2).observation.agentModelFrom).toBe(join(configDir, 'agents/ucheap.md'));
  });

  it("a project agent on opus under a sonnet parent: corrected by setting the call's model (which outranks the file)", async () => {
    const sb = gitSandbox();
    write(join(sb.project, '.claude/agents/deep.md'), agent('deep', 'opus'));
    const p = dispatch(sb, 'deep', 'sonnet');
    const a = answer(await hook(sb, 'PreToolUse', p));
    expect(a.updatedInput).toEqual({ ...p.tool_input, model: 'sonnet' });
    expect(record(sb).decision).toMatchObject({
      action: 'correct',
      reason: 'over-ceiling-corrected',
      effectiveModel: 'sonnet',
    });
  });

  it("CLAUDE_PROJECT_DIR names the project (not the payload's cwd)", async () => {
    const sb = gitSandbox();
    const elsewhere = join(sb.dir, 'real-project');
    mkdirSync(join(elsewhere, '.git'), { recursive: true });
    write(join(elsewhere, '.claude/agents/cheapo.md'), agent('cheapo', 'haiku'));
    expect(
      answer(await hook(sb, 'PreToolUse', dispatch(sb, 'cheapo', 'opus'), { CLAUDE_PROJECT_DIR: elsewhere })),
    ).toBeNull();
  });

  it('CLAUDE_CODE_SUBAGENT_MODEL=haiku: general-purpose runs on haiku, so it is not raised to the default tier', async () => {
    const sb = gitSandbox();
    expect(
      answer(
        await hook(sb, 'PreToolUse', dispatch(sb, 'general-purpose', 'opus'), { CLAUDE_CODE_SUBAGENT_MODEL: 'haiku' }),
      ),
    ).toBeNull();
    expect(record(sb).observation).toMatchObject({ agentModel: 'haiku', agentModelFrom: 'CLAUDE_CODE_SUBAGENT_MODEL' });
  });

  it('CLAUDE_CODE_SUBAGENT_MODEL_FORCE on a model above the parent: a rewrite would be ignored -> denied, naming the variable', async () => {
    const sb = gitSandbox();
    const a = answer(
      await hook(sb, 'PreToolUse', dispatch(sb, 'general-purpose', 'sonnet'), {
        CLAUDE_CODE_SUBAGENT_MODEL: 'opus',
        CLAUDE_CODE_SUBAGENT_MODEL_FORCE: '1',
      }),
    );
    expect(a.permissionDecision).toBe('deny');
    expect(a.permissionDecisionReason).toMatch(
      /^tiergate: agent general-purpose runs on opus \(from CLAUDE_CODE_SUBAGENT_MODEL/,
    );
    expect(a.updatedInput).toBeUndefined();
  });

  it('an agent file tiergate cannot read: allowed unchanged (no default tier), one diagnostic', async () => {
    const sb = gitSandbox();
    write(
      join(sb.project, '.claude/agents/deep.md'),
      `---\nname: deep\ndescription: ${'x'.repeat(70_000)}\nmodel: haiku\n---\n`,
    );
    const out = await hook(sb, 'PreToolUse', dispatch(sb, 'deep', 'opus'));
    expect(out.failed).toBeNull();
    expect(answer(out)).toBeNull();
    expect(record(sb).observation).toMatchObject({ agentModel: null, capability: { canRewrite: false } });
    const lines = diagnosticsLog(sb)
      .split('\n')
      .filter((l) => l.includes('no default tier'));
    expect(lines.length).toBe(1);
    expect(lines[0]).toMatch(/agent deep: \.claude\/agents\/deep\.md: frontmatter longer than/);
  });

  it('an agent defined nowhere tiergate looks: allowed unchanged, one diagnostic', async () => {
    const sb = gitSandbox();
    expect(answer(await hook(sb, 'PreToolUse', dispatch(sb, 'mystery', 'opus')))).toBeNull();
    expect(diagnosticsLog(sb)).toMatch(/agent mystery is defined nowhere tiergate looks/);
  });

  it('the built-in statusline-setup runs on sonnet: under an opus parent it is left alone', async () => {
    const sb = gitSandbox();
    expect(answer(await hook(sb, 'PreToolUse', dispatch(sb, 'statusline-setup', 'opus')))).toBeNull();
    expect(record(sb).observation).toMatchObject({
      agentModel: 'sonnet',
      agentModelFrom: 'built-in agent statusline-setup',
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------------

const load = loadModuleHooks;

type Node = { kind: 'file'; text: string } | { kind: 'fifo' };

/**
 * A `$` whose file system is a Map of absolute paths (folders implied), answering like 2.1.328's: list -> [{ name,
 * kind, isLink, size, mtimeMs }], stat -> { kind }, read(path, { offset, length }) -> text. Counts its fs calls.
 */
function fakeDollar(
  opts: { tree?: Map<string, Node>; env?: Record<string, string>; hang?: (op: string, path: string) => boolean } = {},
) {
  const tree = opts.tree ?? new Map<string, Node>();
  const env: Record<string, string> = { HOME: '/home/u', TIERGATE_HOME: '/tg', ...(opts.env ?? {}) };
  const calls: string[] = [];
  const gate = <T>(op: string, path: string, f: () => T): Promise<T> => {
    calls.push(`${op} ${path}`);
    if (opts.hang?.(op, path)) return new Promise<T>(() => {});
    try {
      return Promise.resolve(f());
    } catch (err) {
      return Promise.reject(err);
    }
  };
  const isDir = (p: string) => [...tree.keys()].some((k) => k.startsWith(`${p}/`));
  const kindOf = (n: Node) => (n.kind === 'file' ? 'file' : 'other');
  const written = new Map<string, string>();
  const $ = {
    env: { get: async (k: string) => env[k], set: async () => ({}) },
    process: { hookEnv: async () => ({ CLAUDE_PLUGIN_DATA: '/plugdata', CLAUDE_PROJECT_DIR: '/proj' }) },
    session: { id: async () => 'sess-1', cwd: async () => '/proj' },
    fs: {
      exists: (p: string) => gate('exists', p, () => tree.has(p) || isDir(p) || written.has(p)),
      stat: (p: string) =>
        gate('stat', p, () => {
          const n = tree.get(p);
          if (n) return { kind: kindOf(n), size: n.kind === 'file' ? n.text.length : 0, mtimeMs: 0, isLink: false };
          if (isDir(p)) return { kind: 'dir', size: 0, mtimeMs: 0, isLink: false };
          throw new Error('ENOENT');
        }),
      read: (p: string, o?: { offset?: number; length?: number }) =>
        gate('read', p, () => {
          const n = tree.get(p);
          if (n?.kind === 'fifo') throw new Error('a FIFO was read: it would block');
          const t = n?.kind === 'file' ? n.text : written.get(p);
          if (t === undefined) throw new Error('ENOENT');
          return t.slice(o?.offset ?? 0, (o?.offset ?? 0) + (o?.length ?? t.length));
        }),
      write: async (p: string, text: string) => void written.set(p, text),
      list: (p: string) =>
        gate('list', p, () => {
          if (!isDir(p)) throw new Error('ENOENT');
          const names = new Map<string, 'file' | 'dir' | 'other'>();
          for (const [k, n] of tree) {
            if (!k.startsWith(`${p}/`)) continue;
            const rest = k.slice(p.length + 1);
            const first = rest.split('/')[0]!;
            names.set(first, rest.includes('/') ? 'dir' : kindOf(n));
          }
          return [...names].map(([name, kind]) => ({ name, kind, size: 0, mtimeMs: 0, isLink: false }));
        }),
    },
    ui: { log: async () => undefined },
  };
  const diagnostics = () =>
    [...written]
      .filter(([k]) => k.includes('/spool/claude-module/'))
      .map(([, v]) => JSON.parse(v))
      .filter((b) => b.diagnostic)
      .map((b) => b.diagnostic.message as string);
  return { $, calls, diagnostics };
}

describe('hooks module (agent.spawn)', () => {
  let source = '';
  beforeAll(async () => {
    // The module bundle as scripts/build.mjs makes it, built in memory: dist/ is left to the build (another test file
    // rebuilding it at the same time would otherwise race this one).
    const shim = (n: string) => join(root, `src/adapters/claude/module/shims/${n}.ts`);
    const out = await build({
      entryPoints: [join(root, 'src/adapters/claude/module/index.ts')],
      bundle: true,
      write: false,
      platform: 'neutral',
      format: 'esm',
      target: 'node20',
      mainFields: ['module', 'main'],
      minifyWhitespace: true,
      legalComments: 'none',
      logLevel: 'silent',
      alias: { 'node:path': shim('node-path'), 'node:os': shim('node-os'), 'node:fs': shim('node-fs') },
    });
    source = out.outputFiles[0]!.text;
  }, 60_000);

  const project = (name: string, text: string): [string, Node] => [
    `/proj/.claude/agents/${name}`,
    { kind: 'file', text },
  ];
  const git: [string, Node] = ['/proj/.git/HEAD', { kind: 'file', text: 'ref' }];

  async function spawn(hooks: Record<string, Hook>, $: unknown, e: Record<string, unknown>) {
    let passed: Record<string, unknown> | null = null;
    const r = await hooks['agent.spawn']!(
      $,
      e,
      async (x: Record<string, unknown>) => ((passed = x), { model: 'x', agentId: 'a-1' }),
    );
    return { r, passed: passed as Record<string, unknown> | null };
  }
  const session = (hooks: Record<string, Hook>, $: unknown) =>
    hooks['session.start']!($, { cwd: '/proj' }, async () => ({ cwd: '/proj' }));

  it('issue 16: a project agent on haiku under an opus parent spawns unchanged (pre-fix: rewritten to sonnet)', async () => {
    const hooks = load(source);
    const { $ } = fakeDollar({ tree: new Map([git, project('cheapo.md', agent('cheapo', 'haiku'))]) });
    await session(hooks, $);
    const { passed } = await spawn(hooks, $, {
      ...fixture('modules/agent.spawn.nomodel.json'),
      subagentType: 'cheapo',
    });
    expect(passed).not.toBeNull();
    expect(passed!.model).toBeUndefined();
  });

  it('a user agent on opus ($CLAUDE_CONFIG_DIR/agents) under a sonnet parent: corrected to sonnet', async () => {
    const hooks = load(source);
    const { $ } = fakeDollar({
      tree: new Map<string, Node>([git, ['/cfg/agents/udeep.md', { kind: 'file', text: agent('udeep', 'opus') }]]),
      env: { CLAUDE_CONFIG_DIR: '/cfg' },
    });
    await session(hooks, $);
    const { model: _m, ...e } = fixture('modules/agent.spawn.parent-sonnet.json');
    const { passed } = await spawn(hooks, $, { ...e, subagentType: 'udeep' });
    expect(passed!.model).toBe('sonnet');
  });

  it('the agent folders are read at session start: a dispatch makes no $.fs call for them', async () => {
    const hooks = load(source);
    const f = fakeDollar({
      tree: new Map([git, project('cheapo.md', agent('cheapo', 'haiku')), project('deep.md', agent('deep', 'opus'))]),
    });
    await session(hooks, f.$);
    const before = f.calls.length;
    expect(f.calls.some((c) => c === 'read /proj/.claude/agents/cheapo.md')).toBe(true);
    const { passed } = await spawn(hooks, f.$, {
      ...fixture('modules/agent.spawn.nomodel.json'),
      subagentType: 'cheapo',
    });
    expect(passed!.model).toBeUndefined();
    expect(f.calls.slice(before).filter((c) => /^(list|read|stat|exists) /.test(c))).toEqual([]);
  });

  it("an installed plugin's agent (installed_plugins.json): read at session start too, corrected under a sonnet parent", async () => {
    const hooks = load(source);
    const registry = JSON.stringify({
      version: 2,
      plugins: { 'pagents@market': [{ scope: 'user', installPath: '/cfg/plugins/cache/market/pagents/0.0.1' }] },
    });
    const f = fakeDollar({
      env: { CLAUDE_CONFIG_DIR: '/cfg' },
      tree: new Map<string, Node>([
        git,
        ['/cfg/plugins/installed_plugins.json', { kind: 'file', text: registry }],
        ['/cfg/plugins/cache/market/pagents/0.0.1/agents/deep.md', { kind: 'file', text: agent('deep', 'opus') }],
      ]),
    });
    await session(hooks, f.$);
    const before = f.calls.length;
    const { model: _m, ...e } = fixture('modules/agent.spawn.parent-sonnet.json');
    const { passed } = await spawn(hooks, f.$, { ...e, subagentType: 'pagents:deep' });
    expect(passed!.model).toBe('sonnet');
    expect(f.calls.slice(before).filter((c) => /^(list|read|stat|exists) /.test(c))).toEqual([]);
  });

  it('a stuck $.fs at the dispatch: cut at the lookup deadline, the spawn goes on unchanged, one diagnostic', async () => {
    const hooks = load(source);
    // No session.start: nothing read ahead, and every agent folder listing hangs.
    const f = fakeDollar({
      tree: new Map([git, project('cheapo.md', agent('cheapo', 'haiku'))]),
      hang: (op) => op === 'list' || op === 'exists',
    });
    const t0 = Date.now();
    const { passed } = await spawn(hooks, f.$, {
      ...fixture('modules/agent.spawn.nomodel.json'),
      subagentType: 'cheapo',
    });
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(passed).not.toBeNull();
    // Unknown: no default tier written over what might be the agent's own (cheaper) model.
    expect(passed!.model).toBeUndefined();
    expect(f.diagnostics().filter((m) => /no default tier/.test(m))).toEqual([
      expect.stringMatching(/agent cheapo: .*deadline/),
    ]);
  });

  it('a stuck init and a stuck record write (io/deadline.ts waitAtMost): the spawn is still corrected, bounded', async () => {
    const hooks = load(source);
    const f = fakeDollar({ tree: new Map([git]) });
    const never = () => new Promise<never>(() => {});
    // No session.start: init runs at the dispatch, and its first `$` call never answers; no record write ever does.
    (f.$.process as { hookEnv: () => Promise<unknown> }).hookEnv = never;
    (f.$.fs as { write: (p: string, t: string) => Promise<unknown> }).write = never;
    const t0 = Date.now();
    const { model: _m, ...e } = fixture('modules/agent.spawn.parent-sonnet.json');
    const { passed } = await spawn(hooks, f.$, { ...e, model: 'opus' });
    // INIT_WAIT_MS (300) for the init, WRITE_WAIT_MS (2000) at most for the record: never the harness's 10 s.
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(passed).not.toBeNull();
    expect(passed!.model).toBe('sonnet');
  });

  it('a FIFO in an agent folder is never read (not a regular file)', async () => {
    const hooks = load(source);
    const f = fakeDollar({
      tree: new Map<string, Node>([
        git,
        ['/proj/.claude/agents/cheapo.md', { kind: 'fifo' }],
        ['/home/u/.claude/agents/cheapo.md', { kind: 'file', text: agent('cheapo', 'haiku') }],
      ]),
    });
    await session(hooks, f.$);
    const { passed } = await spawn(hooks, f.$, {
      ...fixture('modules/agent.spawn.nomodel.json'),
      subagentType: 'cheapo',
    });
    expect(f.calls).not.toContain('read /proj/.claude/agents/cheapo.md');
    // Claude Code skips it too and runs the user's definition (haiku): left alone.
    expect(passed!.model).toBeUndefined();
  });

  it('CLAUDE_CODE_SUBAGENT_MODEL_FORCE (read through $.env) on a model above the parent: denied, not rewritten', async () => {
    const hooks = load(source);
    const { $ } = fakeDollar({
      tree: new Map([git]),
      env: { CLAUDE_CODE_SUBAGENT_MODEL: 'opus', CLAUDE_CODE_SUBAGENT_MODEL_FORCE: '1' },
    });
    await session(hooks, $);
    const { model: _m, ...e } = fixture('modules/agent.spawn.parent-sonnet.json');
    const { r, passed } = await spawn(hooks, $, e);
    expect(passed).toBeNull();
    expect((r as { deny: string }).deny).toMatch(/CLAUDE_CODE_SUBAGENT_MODEL/);
  });

  it('a malformed agent file: unknown, unchanged, one diagnostic', async () => {
    const hooks = load(source);
    const f = fakeDollar({
      tree: new Map([git, project('cheapo.md', '---\nname: cheapo\ndescription: d\nmodel: |\n  haiku\n---\n')]),
    });
    await session(hooks, f.$);
    const { passed } = await spawn(hooks, f.$, {
      ...fixture('modules/agent.spawn.nomodel.json'),
      subagentType: 'cheapo',
    });
    expect(passed!.model).toBeUndefined();
    expect(f.diagnostics().filter((m) => /no default tier/.test(m)).length).toBe(1);
  });
});
