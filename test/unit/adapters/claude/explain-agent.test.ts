/** `tiergate explain --agent <name> --cwd <dir>`: the chain from a Claude Code agent's definition to the decision. */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as explainCommand } from '../../../../src/cli/commands/explain.js';
import { clearRuntimeCache } from '../../../../src/config/runtime.js';
import { runCaptured } from '../../../support/cli.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  clearRuntimeCache();
});

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
const agent = (name: string, model?: string) =>
  `---\nname: ${name}\ndescription: d\n${model ? `model: ${model}\n` : ''}---\nYou are ${name}.\n`;

/** A project (its own git root) with one agent, a home with one user agent; explain runs from elsewhere, with --cwd. */
function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tg-explain-agent-')));
  const project = join(dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  write(join(project, '.claude/agents/deep-review.md'), agent('deep-review', 'opus'));
  write(join(dir, 'home/.claude/agents/cheapo.md'), agent('cheapo', 'haiku'));
  vi.stubEnv('HOME', join(dir, 'home'));
  vi.stubEnv('CLAUDE_CONFIG_DIR', '');
  vi.stubEnv('CLAUDE_CODE_SUBAGENT_MODEL', '');
  vi.stubEnv('CLAUDE_CODE_SUBAGENT_MODEL_FORCE', '');
  vi.stubEnv('TIERGATE_HOME', join(dir, 'tg'));
  vi.stubEnv('TIERGATE_PRICE_REFRESH', 'off');
  // The chain stays one line: wrapping to the terminal is tested in test/unit/cli/terminal-width.test.ts.
  vi.stubEnv('COLUMNS', '400');
  return { dir, project };
}

async function explain(args: string[]) {
  clearRuntimeCache();
  return runCaptured(explainCommand, args);
}

describe('tiergate explain --agent', () => {
  it('an agent file above the parent: the chain of issue 16, then the decision', async () => {
    const s = setup();
    const { code, out } = await explain(['--agent', 'deep-review', '--cwd', s.project, '--parent', 'sonnet']);
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toBe(
      'deep-review → model: opus (from .claude/agents/deep-review.md) → claude-opus-5-5 → over the sonnet parent → corrected to sonnet',
    );
    expect(out).toContain('decision: CORRECT (over-ceiling-corrected)');
  });

  it('a user agent below the parent is left alone; a built-in inherits and gets the default tier', async () => {
    const s = setup();
    expect((await explain(['--agent', 'cheapo', '--cwd', s.project, '--parent', 'opus'])).out.split('\n')[0]).toBe(
      'cheapo → model: haiku (from ~/.claude/agents/cheapo.md) → claude-haiku-5-5 → under the opus parent → allowed',
    );
    expect(
      (await explain(['--agent', 'general-purpose', '--cwd', s.project, '--parent', 'opus'])).out.split('\n')[0],
    ).toBe(
      "general-purpose → no model (built-in agent general-purpose): the parent's model → inherits opus → default tier: corrected to sonnet",
    );
  });

  it("the call's model outranks the file; CLAUDE_CODE_SUBAGENT_MODEL shows as the source", async () => {
    const s = setup();
    expect(
      (
        await explain(['--agent', 'deep-review', '--cwd', s.project, '--parent', 'sonnet', '--child', 'haiku'])
      ).out.split('\n')[0],
    ).toMatch(
      /^deep-review → model: haiku \(from the call, which outranks the agent's file\) → claude-haiku-5-5 → under the sonnet parent → allowed$/,
    );
    vi.stubEnv('CLAUDE_CODE_SUBAGENT_MODEL', 'haiku');
    expect(
      (await explain(['--agent', 'general-purpose', '--cwd', s.project, '--parent', 'opus'])).out.split('\n')[0],
    ).toBe(
      'general-purpose → model: haiku (from CLAUDE_CODE_SUBAGENT_MODEL) → claude-haiku-5-5 → under the opus parent → allowed',
    );
  });

  it('an agent defined nowhere tiergate looks: unknown, allowed; --json carries the chain and the observation', async () => {
    const s = setup();
    const { out } = await explain(['--agent', 'mystery', '--cwd', s.project, '--parent', 'opus', '--json']);
    const j = JSON.parse(out);
    expect(j.chain).toMatch(/^mystery → unknown \(agent mystery is defined nowhere tiergate looks .*\) → allowed$/);
    expect(j.observation).toMatchObject({
      subagentType: 'mystery',
      agentModel: null,
      capability: { canRewrite: false },
    });
    expect(j.decision.action).toBe('allow');
  });

  it('--agent with another harness is a usage error', async () => {
    setup();
    let err = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
    expect(await explainCommand(['--harness', 'codex', '--agent', 'x', '--parent', 'gpt-6-sol'])).toBe(2);
    expect(err).toMatch(/--agent is resolved for --harness claude, .*only \(Codex has no agent resolution/);
  });
});
