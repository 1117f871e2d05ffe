/**
 * The Claude Code child-model chain (src/adapters/claude/agent-definitions.ts): frontmatter reading, the agent lookup
 * through Node's fs on real folders, and the precedence of call / agent file / CLAUDE_CODE_SUBAGENT_MODEL / parent.
 * Every rule here was seen on the 2.1.328 binary (test/e2e/claude/agent-model.e2e.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentLookup,
  exploreCap,
  lookupAgent,
  resolveChildModel,
  type AgentLookup,
  type AgentPlaces,
  type ClaudeModelEnv,
} from '../../../../src/adapters/claude/agent-definitions.js';
import { nodeAgentFs } from '../../../../src/agent-files/fs-node.js';
import { AGENT_HEAD_BYTES, MAX_AGENT_FILES } from '../../../../src/agent-files/fs.js';
import { parseAgentHead } from '../../../../src/agent-files/head.js';

const agent = (name: string | null, model?: string, extra = '') =>
  `---\n${name !== null ? `name: ${name}\n` : ''}description: test agent\n${model !== undefined ? `model: ${model}\n` : ''}${extra}---\nYou are ${name}.\n`;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A session: home with ~/.claude, a git repo holding the project (so the upward walk stops inside the sandbox). */
function session(): { root: string; places: AgentPlaces; project: string; user: string } {
  const root = mkdtempSync(join(tmpdir(), 'tg-agents-'));
  const home = join(root, 'home');
  const project = join(root, 'repo', 'project');
  mkdirSync(join(root, 'repo', '.git'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const configDir = join(home, '.claude');
  return { root, project, user: join(configDir, 'agents'), places: { projectDir: project, configDir, home } };
}

const lookup = (places: AgentPlaces, name: string) => agentLookup(nodeAgentFs, places)(name);

describe('parseAgentHead: frontmatter as Claude Code 2.1.328 reads it', () => {
  it.each([
    ['plain', agent('deep', 'opus'), { name: 'deep', model: 'opus', hasDescription: true }],
    ['quoted values', '---\nname: "deep"\ndescription: \'d\'\nmodel: "haiku"\n---\n', { name: 'deep', model: 'haiku' }],
    ['a trailing comment', agent('deep', 'haiku # cheap'), { model: 'haiku' }],
    ['inherit in any case', agent('deep', 'Inherit'), { model: 'inherit' }],
    [
      'an alias in another case is kept as written (Claude Code resolves it)',
      agent('deep', 'Haiku'),
      { model: 'Haiku' },
    ],
    ['CRLF line ends', agent('deep', 'haiku').replace(/\n/g, '\r\n'), { name: 'deep', model: 'haiku' }],
    ['a byte-order mark', `\ufeff${agent('deep', 'haiku')}`, { name: 'deep', model: 'haiku' }],
    ['a later duplicate key wins', agent('deep', 'sonnet', 'model: haiku\n'), { model: 'haiku' }],
    ['a tab after the colon', '---\nname: deep\ndescription: d\nmodel:\thaiku\n---\n', { model: 'haiku' }],
    ['no model line', agent('deep'), { model: null }],
    ['an empty model', agent('deep', ''), { model: null }],
    ['a model that is not a string (Claude Code skips it)', agent('deep', '[opus]'), { model: null }],
    ['a numeric name is no name', agent('123', 'haiku'), { name: null }],
    ['no description', '---\nname: deep\nmodel: haiku\n---\n', { hasDescription: false }],
    [
      'a block description still counts',
      '---\nname: deep\ndescription: |\n  long\n  text\nmodel: haiku\n---\n',
      { hasDescription: true, model: 'haiku' },
    ],
    // Claude Code's pattern ends the block at the first `---`, even inside a value: model is then outside it.
    [
      '`---` inside a value ends the block',
      '---\nname: deep\ndescription: a---b\nmodel: haiku\n---\n',
      { name: 'deep', model: null },
    ],
    ['an indented model is not top level', '---\nname: deep\ndescription: d\n  model: haiku\n---\n', { model: null }],
  ])('%s', (_, text, want) => {
    const head = parseAgentHead(text, false);
    expect(head.kind).toBe('agent');
    expect(head).toMatchObject(want);
  });

  it('no frontmatter, or one never closed in a whole file: no agent', () => {
    expect(parseAgentHead('just text\n', false)).toEqual({ kind: 'none' });
    expect(parseAgentHead('---\nname: deep\nmodel: haiku\n', false)).toEqual({ kind: 'none' });
  });

  it('a frontmatter still open where the head was cut: unreadable, not "no agent"', () => {
    expect(parseAgentHead(`---\nname: deep\ndescription: ${'x'.repeat(100)}\n`, true)).toMatchObject({
      kind: 'unreadable',
    });
  });

  it('a model or name in a form it does not read (block scalar, anchor): unreadable', () => {
    expect(parseAgentHead('---\nname: deep\ndescription: d\nmodel: |\n  haiku\n---\n', false)).toMatchObject({
      kind: 'unreadable',
    });
    expect(parseAgentHead('---\nname: &n deep\ndescription: d\n---\n', false)).toMatchObject({ kind: 'unreadable' });
  });
});

describe('lookupAgent through Node fs', () => {
  it('project agent: found by its frontmatter name, in a subfolder too, shown relative to the project', async () => {
    const s = session();
    write(join(s.project, '.claude/agents/filename.md'), agent('realname', 'haiku'));
    write(join(s.project, '.claude/agents/team/nested.md'), agent('nested', 'opus'));
    expect(await lookup(s.places, 'realname')).toEqual({
      kind: 'found',
      def: {
        name: 'realname',
        model: 'haiku',
        source: 'project',
        path: join(s.project, '.claude/agents/filename.md'),
        display: '.claude/agents/filename.md',
      },
    });
    expect(await lookup(s.places, 'nested')).toMatchObject({
      kind: 'found',
      def: { model: 'opus', display: '.claude/agents/team/nested.md' },
    });
    // The file name is not the agent's name.
    expect((await lookup(s.places, 'filename')).kind).toBe('not-found');
  });

  it('a file without description is no agent (Claude Code: "not found")', async () => {
    const s = session();
    write(join(s.project, '.claude/agents/nodesc.md'), '---\nname: nodesc\nmodel: haiku\n---\n');
    expect((await lookup(s.places, 'nodesc')).kind).toBe('not-found');
  });

  it('user agent in $CLAUDE_CONFIG_DIR/agents, shown under ~', async () => {
    const s = session();
    write(join(s.user, 'ucheap.md'), agent('ucheap', 'haiku'));
    expect(await lookup(s.places, 'ucheap')).toMatchObject({
      kind: 'found',
      def: { model: 'haiku', source: 'user', display: '~/.claude/agents/ucheap.md' },
    });
  });

  it('project beats user; the nearest project folder beats one further up; the walk stops at the git root', async () => {
    const s = session();
    write(join(s.user, 'dup.md'), agent('dup', 'sonnet'));
    write(join(dirname(s.project), '.claude/agents/dup.md'), agent('dup', 'opus'));
    write(join(s.project, '.claude/agents/dup.md'), agent('dup', 'haiku'));
    write(join(s.root, '.claude/agents/above.md'), agent('above', 'haiku')); // above the git root
    expect(await lookup(s.places, 'dup')).toMatchObject({ kind: 'found', def: { model: 'haiku', source: 'project' } });
    expect(await lookup({ ...s.places, projectDir: join(s.project, 'deeper') }, 'dup')).toMatchObject({
      kind: 'found',
      def: { model: 'haiku' },
    });
    expect((await lookup(s.places, 'above')).kind).toBe('not-found');
  });

  it('home itself is never a project folder (its .claude/agents is the user folder)', async () => {
    const s = session();
    const homeProject = join(s.places.home!, 'work');
    mkdirSync(homeProject, { recursive: true });
    write(join(s.places.home!, '.claude/agents/x.md'), agent('x', 'haiku'));
    // Found as the user's (configDir = ~/.claude), not as a project agent.
    expect(await lookup({ ...s.places, projectDir: homeProject }, 'x')).toMatchObject({
      kind: 'found',
      def: { source: 'user' },
    });
  });

  it('built-ins when no file defines the name; a project file of the same name wins over the built-in', async () => {
    const s = session();
    expect(await lookup(s.places, 'Explore')).toMatchObject({
      kind: 'found',
      def: { source: 'built-in', model: 'inherit' },
    });
    expect(await lookup(s.places, 'statusline-setup')).toMatchObject({ kind: 'found', def: { model: 'sonnet' } });
    expect(await lookup(s.places, 'general-purpose')).toMatchObject({ kind: 'found', def: { model: null } });
    write(join(s.project, '.claude/agents/gp.md'), agent('general-purpose', 'haiku'));
    expect(await lookup(s.places, 'general-purpose')).toMatchObject({
      kind: 'found',
      def: { source: 'project', model: 'haiku' },
    });
  });

  it('a symbolic link to an agent file is followed (Claude Code follows them)', async () => {
    const s = session();
    write(join(s.root, 'shared/deep.md'), agent('deep', 'opus'));
    mkdirSync(join(s.project, '.claude/agents'), { recursive: true });
    symlinkSync(join(s.root, 'shared/deep.md'), join(s.project, '.claude/agents/deep.md'));
    expect(await lookup(s.places, 'deep')).toMatchObject({ kind: 'found', def: { model: 'opus' } });
  });

  describe('plugin agents: <plugin>:<folder…>:<name>', () => {
    function installed(s: ReturnType<typeof session>, plugin: string, enabled: boolean | undefined = true) {
      const installPath = join(s.places.configDir!, 'plugins/cache/market', plugin, '0.0.1');
      write(
        join(s.places.configDir!, 'plugins/installed_plugins.json'),
        JSON.stringify({
          version: 2,
          plugins: { [`${plugin}@market`]: [{ scope: 'user', installPath, version: '0.0.1' }] },
        }),
      );
      if (enabled !== undefined)
        write(
          join(s.places.configDir!, 'settings.json'),
          JSON.stringify({ enabledPlugins: { [`${plugin}@market`]: enabled } }),
        );
      return installPath;
    }

    it("found in the installed copy's agents folder, by frontmatter name, namespaced by subfolder", async () => {
      const s = session();
      const root = installed(s, 'pagents');
      write(join(root, 'agents/file1.md'), agent('prev', 'haiku'));
      write(join(root, 'agents/team/x.md'), agent('prev2', 'opus'));
      write(join(root, 'agents/noname.md'), '---\nmodel: sonnet\n---\n');
      expect(await lookup(s.places, 'pagents:prev')).toMatchObject({
        kind: 'found',
        def: { name: 'pagents:prev', model: 'haiku', source: 'plugin' },
      });
      expect(await lookup(s.places, 'pagents:team:prev2')).toMatchObject({ kind: 'found', def: { model: 'opus' } });
      // No name: the file's name (a plugin agent needs no description either).
      expect(await lookup(s.places, 'pagents:noname')).toMatchObject({ kind: 'found', def: { model: 'sonnet' } });
      // `prev2` lives under team/: not at the top.
      expect((await lookup(s.places, 'pagents:prev2')).kind).toBe('unknown');
    });

    it('a plugin that is not installed, or turned off: unknown (a --plugin-dir plugin is invisible to hooks)', async () => {
      const s = session();
      expect(await lookup(s.places, 'nothere:x')).toMatchObject({ kind: 'unknown' });
      const root = installed(s, 'off', false);
      write(join(root, 'agents/x.md'), agent('x', 'haiku'));
      expect(await lookup(s.places, 'off:x')).toMatchObject({ kind: 'unknown' });
    });
  });

  describe('what cannot be read is unknown, never a guess', () => {
    it('a FIFO named like the agent is no agent file (Claude Code reads regular files only): never opened, the next definition wins', async () => {
      const s = session();
      mkdirSync(join(s.project, '.claude/agents'), { recursive: true });
      execFileSync('mkfifo', [join(s.project, '.claude/agents/deep.md')]);
      write(join(s.user, 'deep.md'), agent('deep', 'haiku'));
      const t0 = Date.now();
      expect(await lookup(s.places, 'deep')).toMatchObject({ kind: 'found', def: { source: 'user', model: 'haiku' } });
      expect(Date.now() - t0).toBeLessThan(2000);
    });

    it('FIFO-safe reads: the head reader refuses a FIFO at once; a FIFO for the plugin registry means unknown', async () => {
      const s = session();
      const fifo = join(s.root, 'fifo.md');
      execFileSync('mkfifo', [fifo]);
      const t0 = Date.now();
      await expect(nodeAgentFs.head(fifo, 1024)).rejects.toThrow(/FIFO/);
      mkdirSync(join(s.places.configDir!, 'plugins'), { recursive: true });
      execFileSync('mkfifo', [join(s.places.configDir!, 'plugins/installed_plugins.json')]);
      execFileSync('mkfifo', [join(s.places.configDir!, 'settings.json')]);
      expect(await lookup(s.places, 'pagents:x')).toMatchObject({ kind: 'unknown' });
      expect(Date.now() - t0).toBeLessThan(2000);
    });

    it('an agent file named like the agent that cannot be read: unknown, not the next definition', async () => {
      const s = session();
      // Tests run as root, where a chmod 000 file still opens: the failing read is the AgentFs's.
      write(join(s.project, '.claude/agents/deep.md'), agent('deep', 'opus'));
      write(join(s.user, 'deep.md'), agent('deep', 'haiku'));
      const fs = {
        ...nodeAgentFs,
        head: async (p: string, n: number) =>
          p.endsWith('project/.claude/agents/deep.md')
            ? Promise.reject(new Error('EACCES: permission denied'))
            : nodeAgentFs.head(p, n),
      };
      expect(await lookupAgent(fs, 'deep', s.places)).toMatchObject({
        kind: 'unknown',
        why: expect.stringMatching(/cannot read \.claude\/agents\/deep\.md: EACCES/),
      });
    });

    it('a FIFO under another name is skipped: the definition elsewhere is found', async () => {
      const s = session();
      mkdirSync(join(s.project, '.claude/agents'), { recursive: true });
      execFileSync('mkfifo', [join(s.project, '.claude/agents/other.md')]);
      write(join(s.project, '.claude/agents/deep.md'), agent('deep', 'haiku'));
      write(join(s.user, 'ucheap.md'), agent('ucheap', 'haiku'));
      expect(await lookup(s.places, 'deep')).toMatchObject({ kind: 'found', def: { model: 'haiku' } });
      expect(await lookup(s.places, 'ucheap')).toMatchObject({ kind: 'found', def: { source: 'user' } });
    });

    it('an oversized frontmatter (still open past the head read): unknown', async () => {
      const s = session();
      write(
        join(s.project, '.claude/agents/deep.md'),
        `---\nname: deep\ndescription: ${'x'.repeat(AGENT_HEAD_BYTES + 10)}\nmodel: opus\n---\n`,
      );
      expect(await lookup(s.places, 'deep')).toMatchObject({
        kind: 'unknown',
        why: expect.stringMatching(/frontmatter longer than/),
      });
    });

    it('a large body after a small frontmatter is fine (only the head is read)', async () => {
      const s = session();
      write(join(s.project, '.claude/agents/deep.md'), `${agent('deep', 'opus')}${'body '.repeat(200_000)}`);
      expect(await lookup(s.places, 'deep')).toMatchObject({ kind: 'found', def: { model: 'opus' } });
    });

    it('a malformed model line (a form tiergate does not read): unknown', async () => {
      const s = session();
      write(join(s.project, '.claude/agents/deep.md'), '---\nname: deep\ndescription: d\nmodel: >\n  opus\n---\n');
      expect(await lookup(s.places, 'deep')).toMatchObject({ kind: 'unknown' });
    });

    it(`more than ${MAX_AGENT_FILES} files to read: unknown`, async () => {
      const s = session();
      for (let i = 0; i <= MAX_AGENT_FILES; i++)
        write(join(s.project, `.claude/agents/a${i}.md`), agent(`a${i}`, 'haiku'));
      write(join(s.user, 'deep.md'), agent('deep', 'haiku'));
      expect(await lookup(s.places, 'deep')).toMatchObject({
        kind: 'unknown',
        why: expect.stringMatching(/more than 64 agent files/),
      });
      // The usual layout (`<name>.md`) is read first, so an agent among many is still found.
      expect(await lookup(s.places, `a${MAX_AGENT_FILES}`)).toMatchObject({ kind: 'found' });
    });
  });
});

describe('resolveChildModel: the chain', () => {
  const found = (
    model: string | null,
    source: 'project' | 'built-in' = 'project',
    display = '.claude/agents/x.md',
  ): AgentLookup => ({ kind: 'found', def: { name: 'x', model, source, path: null, display } });
  const run = (
    over: Partial<{
      subagentType: string | null;
      callModel: string | null;
      fork: boolean;
      parentModel: string | null;
      env: ClaudeModelEnv;
    }>,
    lookupResult: AgentLookup = found(null),
  ) => {
    const asked: string[] = [];
    const result = resolveChildModel({
      subagentType: 'x',
      callModel: null,
      fork: false,
      parentModel: 'claude-opus-5-5',
      env: {},
      ...over,
      lookup: async (name) => (asked.push(name), lookupResult),
    });
    return result.then((r) => ({ ...r, asked }));
  };

  it("the call's model wins and no file is read", async () => {
    expect(await run({ callModel: 'sonnet' }, found('haiku'))).toMatchObject({
      requestedModel: 'sonnet',
      agentModel: null,
      rewriteHonoured: true,
      asked: [],
    });
  });

  it("an agent file's model, with where it came from", async () => {
    expect(await run({}, found('haiku'))).toMatchObject({
      requestedModel: null,
      agentModel: 'haiku',
      agentModelFrom: '.claude/agents/x.md',
      rewriteHonoured: true,
      unknown: null,
    });
  });

  it('`inherit` and no model: the child inherits (agentModel null)', async () => {
    expect(await run({}, found('inherit'))).toMatchObject({ agentModel: null, rewriteHonoured: true, unknown: null });
    expect(await run({}, found(null))).toMatchObject({ agentModel: null, rewriteHonoured: true, unknown: null });
  });

  it('CLAUDE_CODE_SUBAGENT_MODEL: below the call and the agent file, above inheriting; `inherit` in the file beats it', async () => {
    const env = { CLAUDE_CODE_SUBAGENT_MODEL: 'haiku' };
    expect(await run({ env }, found(null))).toMatchObject({
      agentModel: 'haiku',
      agentModelFrom: 'CLAUDE_CODE_SUBAGENT_MODEL',
      rewriteHonoured: true,
    });
    expect(await run({ env }, found('sonnet'))).toMatchObject({ agentModel: 'sonnet' });
    expect(await run({ env }, found('inherit'))).toMatchObject({ agentModel: null });
    expect(await run({ env, callModel: 'opus' })).toMatchObject({ requestedModel: 'opus', agentModel: null });
    expect(await run({ env: { CLAUDE_CODE_SUBAGENT_MODEL: 'inherit' } }, found(null))).toMatchObject({
      agentModel: null,
    });
  });

  it("CLAUDE_CODE_SUBAGENT_MODEL_FORCE: the variable's model for every child, the call ignored, no rewrite honoured", async () => {
    const env = { CLAUDE_CODE_SUBAGENT_MODEL: 'opus', CLAUDE_CODE_SUBAGENT_MODEL_FORCE: 'true' };
    expect(await run({ env, callModel: 'haiku' }, found('haiku'))).toMatchObject({
      requestedModel: null,
      agentModel: 'opus',
      rewriteHonoured: false,
      asked: [],
    });
    expect(await run({ env: { ...env, CLAUDE_CODE_SUBAGENT_MODEL_FORCE: '0' }, callModel: 'haiku' })).toMatchObject({
      requestedModel: 'haiku',
      rewriteHonoured: true,
    });
    // Forced with no model: everything inherits; the call and the file are ignored.
    expect(
      await run({ env: { CLAUDE_CODE_SUBAGENT_MODEL_FORCE: '1' }, callModel: 'haiku' }, found('haiku')),
    ).toMatchObject({ requestedModel: null, agentModel: null, rewriteHonoured: false });
  });

  it('a fork inherits whatever the call says, and cannot be rewritten', async () => {
    expect(await run({ fork: true, subagentType: 'fork', callModel: 'haiku' })).toMatchObject({
      requestedModel: null,
      agentModel: null,
      rewriteHonoured: false,
      asked: [],
    });
  });

  it('no subagent_type: general-purpose', async () => {
    expect((await run({ subagentType: null })).asked).toEqual(['general-purpose']);
  });

  it('unknown or not found: unknown, with the reason (the observation then allows no rewrite)', async () => {
    expect(await run({}, { kind: 'unknown', why: 'cannot read x' })).toMatchObject({
      agentModel: null,
      unknown: 'agent x: cannot read x',
    });
    expect((await run({}, { kind: 'not-found', searched: ['.claude/agents'] })).unknown).toMatch(
      /defined nowhere tiergate looks/,
    );
    const thrown = await resolveChildModel({
      subagentType: 'x',
      callModel: null,
      fork: false,
      parentModel: null,
      env: {},
      lookup: async () => {
        throw new Error('boom');
      },
    });
    expect(thrown.unknown).toMatch(/boom/);
  });

  it('Explore under a parent above opus runs on opus (first-party API only, unless disabled)', async () => {
    const explore = found('inherit', 'built-in', 'built-in agent Explore');
    expect(await run({ subagentType: 'Explore', parentModel: 'claude-fable-5-2' }, explore)).toMatchObject({
      agentModel: 'opus',
    });
    expect(await run({ subagentType: 'Explore', parentModel: 'claude-opus-5-5' }, explore)).toMatchObject({
      agentModel: null,
    });
    expect(exploreCap('claude-fable-5-2', { CLAUDE_CODE_USE_BEDROCK: '1' })).toBeNull();
    expect(exploreCap('claude-fable-5-2', { CLAUDE_CODE_DISABLE_EXPLORE_INHERIT_CAP: 'true' })).toBeNull();
    // Plan is `inherit` too, but has no cap.
    expect(
      await run({ subagentType: 'Plan', parentModel: 'claude-fable-5-2' }, found('inherit', 'built-in')),
    ).toMatchObject({ agentModel: null });
  });
});

describe('lookupAgent never reads past its bounds', () => {
  it("reads each agent file's head only, at most AGENT_HEAD_BYTES + 1", async () => {
    const reads: number[] = [];
    const s = session();
    write(join(s.project, '.claude/agents/deep.md'), `${agent('deep', 'opus')}${'x'.repeat(500_000)}`);
    const fs = { ...nodeAgentFs, head: async (p: string, n: number) => (reads.push(n), nodeAgentFs.head(p, n)) };
    expect(await lookupAgent(fs, 'deep', s.places)).toMatchObject({ kind: 'found' });
    expect(reads).toEqual([AGENT_HEAD_BYTES + 1]);
  });
});
