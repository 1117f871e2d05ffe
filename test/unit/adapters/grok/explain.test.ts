/**
 * `tiergate explain --harness grok --agent <type>`: the chain the dispatch hook resolves (catalog.ts), through the
 * registry's Grok module.
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
  clearRuntimeCache();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sandbox(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tg-grok-explain-'));
  dirs.push(dir);
  vi.stubEnv('HOME', join(dir, 'home'));
  vi.stubEnv('GROK_HOME', join(dir, 'home', '.grok'));
  vi.stubEnv('TIERGATE_HOME', join(dir, 'tg'));
  vi.stubEnv('TIERGATE_PRICE_REFRESH', 'off');
  // The chain stays one line: wrapping to the terminal is tested in test/unit/cli/terminal-width.test.ts.
  vi.stubEnv('COLUMNS', '400');
  mkdirSync(join(dir, 'home', '.grok'), { recursive: true });
  writeFileSync(join(dir, 'home', '.grok', 'config.toml'), config);
  mkdirSync(join(dir, 'project', '.git'), { recursive: true });
  return dir;
}

const explain = async (argv: string[]) => {
  clearRuntimeCache();
  return runCaptured((a) => explainCommand(a, HARNESSES), argv);
};

describe('explain --harness grok --agent', () => {
  it("a role's pricier model beats the per-type pin: the chain names where, the decision corrects to the parent", async () => {
    const dir = sandbox(
      '[subagents.models]\nexplore = "grok-4.5"\n[subagents.roles.explore]\nmodel = "claude-opus-4-1"\n',
    );
    const r = await explain([
      '--harness',
      'grok',
      '--agent',
      'explore',
      '--parent',
      'grok-4.6',
      '--cwd',
      join(dir, 'project'),
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `explore → model: claude-opus-4-1 (${join(dir, 'home', '.grok', 'config.toml')} [subagents.roles.explore].model)`,
    );
    expect(r.out).toMatch(/corrected to grok-4\.6/);
  });

  it("the call's model outranks the config; nothing set inherits the parent", async () => {
    const dir = sandbox('[subagents.models]\nexplore = "claude-opus-4-1"\n');
    const call = await explain([
      '--harness',
      'grok',
      '--agent',
      'explore',
      '--child',
      'grok-4.5',
      '--parent',
      'grok-4.6',
      '--cwd',
      join(dir, 'project'),
    ]);
    expect(call.out).toContain('explore → model: grok-4.5 (the call)');
    const plain = await explain([
      '--harness',
      'grok',
      '--agent',
      'plan',
      '--parent',
      'grok-4.6',
      '--cwd',
      join(dir, 'project'),
    ]);
    expect(plain.out).toContain('plan → no model set: inherits grok-4.6');
  });
});
