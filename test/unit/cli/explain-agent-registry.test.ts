/**
 * `tiergate explain --agent` asks the registry: a harness whose module has explainAgent is explained through it, with
 * nothing in the command naming that harness; one without gets a usage error naming the harnesses that have one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { capabilityFor } from '../../../src/adapters/capabilities.js';
import type { AgentExplainInput, HarnessModule } from '../../../src/adapters/harness-module.js';
import { HARNESSES } from '../../../src/adapters/index.js';
import type { Harness } from '../../../src/contracts/harness.js';
import { run as explainCommand } from '../../../src/cli/commands/explain.js';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import { runCaptured } from '../../support/cli.js';

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  clearRuntimeCache();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function home(): void {
  const dir = mkdtempSync(join(tmpdir(), 'tg-explain-registry-'));
  dirs.push(dir);
  vi.stubEnv('HOME', dir);
  vi.stubEnv('TIERGATE_HOME', join(dir, 'tg'));
  vi.stubEnv('TIERGATE_PRICE_REFRESH', 'off');
}

async function explain(argv: string[], registry: Readonly<Record<Harness, HarnessModule>>) {
  clearRuntimeCache();
  return runCaptured((a) => explainCommand(a, registry), argv);
}

describe('explain --agent reads the registry', () => {
  it("explains a harness through its module's explainAgent, whatever its name", async () => {
    home();
    const seen: AgentExplainInput[] = [];
    const codex: HarnessModule = {
      ...HARNESSES.codex,
      explainAgent: async (input) => {
        seen.push(input);
        return {
          observation: {
            kind: 'dispatch',
            harness: 'codex',
            sessionId: null,
            callId: null,
            parentModel: input.parentModel,
            parentModelSource: 'cli',
            requestedModel: 'gpt-6-sol',
            requestedAgent: input.name,
            requestedTier: null,
            agentModel: 'gpt-6-sol',
            subagentType: input.name,
            capability: capabilityFor('codex', { codexRewrite: false }),
            toolInput: {},
            cwd: input.projectDir,
            escalationFrom: null,
            at: input.at,
          },
          chain: (decision) => `${input.name} → role file → gpt-6-sol → ${decision.action}`,
          details: { role: 'reviewer.toml' },
        };
      },
    };
    const registry = { ...HARNESSES, codex };
    const r = await explain(
      ['--harness', 'codex', '--agent', 'reviewer', '--cwd', '/nowhere', '--parent', 'gpt-6-luna'],
      registry,
    );
    expect(r.code, r.err).toBe(0);
    expect(seen).toMatchObject([
      { name: 'reviewer', parentModel: 'gpt-6-luna', projectDir: '/nowhere', callModel: null },
    ]);
    expect(r.out.split('\n')[0]).toMatch(/^reviewer → role file → gpt-6-sol → (allow|deny|correct)$/);
    expect(r.out).toMatch(/^decision: /m);
    const json = await explain(
      ['--harness', 'codex', '--agent', 'reviewer', '--parent', 'gpt-6-luna', '--json'],
      registry,
    );
    expect(JSON.parse(json.out)).toMatchObject({ role: 'reviewer.toml', observation: { harness: 'codex' } });
  });

  it('a harness whose module has none is a usage error naming the ones that have it', async () => {
    home();
    // No module resolves agents (Copilot CLI's does too in the real registry).
    const registry = Object.fromEntries(
      Object.entries(HARNESSES).map(([h, m]) => [h, { ...m, explainAgent: undefined }]),
    ) as unknown as typeof HARNESSES;
    const r = await explain(['--harness', 'claude', '--agent', 'x', '--parent', 'opus'], registry);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--agent is resolved for no harness \(Claude Code has no agent resolution/);
    const withGemini = {
      ...registry,
      claude: HARNESSES.claude,
      gemini: { ...HARNESSES.gemini, explainAgent: HARNESSES.claude.explainAgent },
    };
    const g = await explain(['--harness', 'codex', '--agent', 'x', '--parent', 'gpt-6-sol'], withGemini);
    expect(g.err).toMatch(
      /--agent is resolved for --harness claude, --harness gemini only \(Codex has no agent resolution/,
    );
  });
});
