/**
 * `tiergate explain --harness copilot --agent <name>`: the chain the dispatch hook resolves (agents.ts), through the
 * registry's Copilot module.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HARNESSES } from '../../../../src/adapters/index.js';
import { run as explainCommand } from '../../../../src/cli/commands/explain.js';
import { clearRuntimeCache } from '../../../../src/config/runtime.js';
import { runCaptured } from '../../../support/cli.js';

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  clearRuntimeCache();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sandbox(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tg-copilot-explain-'));
  dirs.push(dir);
  vi.stubEnv('HOME', join(dir, 'home'));
  vi.stubEnv('COPILOT_HOME', join(dir, 'home', '.copilot'));
  vi.stubEnv('TIERGATE_HOME', join(dir, 'tg'));
  vi.stubEnv('TIERGATE_PRICE_REFRESH', 'off');
  // The chain stays one line: wrapping to the terminal is tested in test/unit/cli/terminal-width.test.ts.
  vi.stubEnv('COLUMNS', '400');
  mkdirSync(join(dir, 'home', '.copilot', 'agents'), { recursive: true });
  mkdirSync(join(dir, 'project', '.git'), { recursive: true });
  return dir;
}

async function explain(argv: string[]) {
  clearRuntimeCache();
  return runCaptured((a) => explainCommand(a, HARNESSES), argv);
}

describe('explain --harness copilot --agent', () => {
  it("a custom agent's pricier model: the chain names its file, the decision corrects to the parent's model", async () => {
    const dir = sandbox();
    const file = join(dir, 'home', '.copilot', 'agents', 'pricey.agent.md');
    writeFileSync(file, '---\nname: pricey\ndescription: d\nmodel: claude-opus-4.8\n---\nbody\n');
    const r = await explain([
      '--harness',
      'copilot',
      '--agent',
      'pricey',
      '--parent',
      'gpt-5.4',
      '--cwd',
      join(dir, 'project'),
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `pricey → model: claude-opus-4.8 (from ${file}) → claude-opus-4-8 → over the gpt-5.4 parent → corrected to gpt-5.4`,
    );
    expect(r.out).toContain('set model = "gpt-5.4"');
  });

  it("the call's model outranks the agent's; a built-in's model list is unknown without the session's billing mode", async () => {
    const dir = sandbox();
    const cwd = join(dir, 'project');
    const call = await explain([
      '--harness',
      'copilot',
      '--agent',
      'general-purpose',
      '--child',
      'gpt-5.4-mini',
      '--parent',
      'gpt-5.4',
      '--cwd',
      cwd,
    ]);
    expect(call.out).toContain('general-purpose → model: gpt-5.4-mini (from the call');
    expect(call.out).toContain('under the gpt-5.4 parent → allowed');
    const builtIn = await explain([
      '--harness',
      'copilot',
      '--agent',
      'explore',
      '--parent',
      'gpt-5.4',
      '--cwd',
      cwd,
      '--json',
    ]);
    const j = JSON.parse(builtIn.out) as {
      chain: string;
      decision: { action: string };
      observation: { capability: { canRewrite: boolean } };
    };
    expect(j.chain).toContain('explore → unknown (built-in agent explore lists');
    expect(j.decision.action).toBe('allow');
    expect(j.observation.capability.canRewrite).toBe(false);
  });
});
