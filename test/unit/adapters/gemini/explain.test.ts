/**
 * `tiergate explain --harness gemini --agent <name>`: the chain the dispatch hook resolves (agents.ts, the id as sent),
 * with tiergate's tier agents (its extension's agents folder) as the correction's targets, through the registry.
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

const agent = (dir: string, file: string, front: string) => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), `---\n${front}\n---\nbody\n`);
};

function sandbox(tierAgents: boolean): { root: string; project: string } {
  const root = mkdtempSync(join(tmpdir(), 'tg-gemini-explain-'));
  dirs.push(root);
  vi.stubEnv('HOME', join(root, 'home'));
  vi.stubEnv('GEMINI_CLI_HOME', '');
  vi.stubEnv('TIERGATE_HOME', join(root, 'tg'));
  vi.stubEnv('TIERGATE_PRICE_REFRESH', 'off');
  // The chain stays one line: wrapping to the terminal is tested in test/unit/cli/terminal-width.test.ts.
  vi.stubEnv('COLUMNS', '400');
  agent(
    join(root, 'home', '.gemini', 'agents'),
    'pricey.md',
    'name: pricey\ndescription: d\nkind: local\nmodel: gemini-3-pro-preview',
  );
  if (tierAgents) {
    const ext = join(root, 'home', '.gemini', 'extensions', 'tiergate', 'agents');
    agent(ext, 'tiergate-parent.md', 'name: tiergate-parent\ndescription: d\nkind: local');
    agent(ext, 'tiergate-cheap.md', 'name: tiergate-cheap\ndescription: d\nkind: local\nmodel: gemini-2.5-flash');
  }
  const project = join(root, 'project');
  mkdirSync(project, { recursive: true });
  return { root, project };
}

async function explain(argv: string[]) {
  clearRuntimeCache();
  return runCaptured((a) => explainCommand(a, HARNESSES), argv);
}

describe('explain --harness gemini --agent', () => {
  it('an agent whose model is sent as a pricier id: corrected to the parent tier agent of the extension', async () => {
    const { project } = sandbox(true);
    const r = await explain([
      '--harness',
      'gemini',
      '--agent',
      'pricey',
      '--parent',
      'gemini-2.5-pro',
      '--cwd',
      project,
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('pricey → model: gemini-3.1-pro-preview-customtools (');
    expect(r.out).toContain('gemini-3-pro-preview, sent as gemini-3.1-pro-preview-customtools');
    expect(r.out).toContain('over the gemini-2.5-pro parent → corrected to tiergate-parent');
    expect(r.out).toContain('set agent_name = "tiergate-parent"');
  });

  it('without the extension no tier agent fits: denied; a built-in limited to some tools is never switched', async () => {
    const { project } = sandbox(false);
    const r = await explain([
      '--harness',
      'gemini',
      '--agent',
      'pricey',
      '--parent',
      'gemini-2.5-pro',
      '--cwd',
      project,
    ]);
    expect(r.out).toContain('→ denied (the model is told to retry)');
    const b = await explain([
      '--harness',
      'gemini',
      '--agent',
      'codebase_investigator',
      '--child',
      'x',
      '--parent',
      'gemini-2.5-pro',
      '--cwd',
      project,
      '--json',
    ]);
    const j = JSON.parse(b.out) as { chain: string; observation: { capability: { canRewrite: boolean } } };
    expect(j.chain).toContain('(--child x ignored: invoke_agent takes no model)');
    expect(j.chain).toContain('limited to some tools: never switched');
    expect(j.observation.capability.canRewrite).toBe(false);
  });
});
