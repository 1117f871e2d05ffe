/**
 * `tiergate explain --harness gemini|opencode|pi --child <agent's model>` names the value the dispatch hook would set:
 * tiergate's tier agent `tiergate-<tier>` (the demo's hooks answer `tiergate-parent`), never a bare tier name such as
 * `cheap`, which no agent-kind harness knows (issue 29 item 5).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HARNESSES } from '../../../src/adapters/index.js';
import { run as explainCommand } from '../../../src/cli/commands/explain.js';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import { runCaptured } from '../../support/cli.js';

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  clearRuntimeCache();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('explain names the retry the hook gives', () => {
  for (const [harness, field] of [
    ['gemini', 'agent_name'],
    ['opencode', 'subagent_type'],
    ['pi', 'agent'],
  ] as const) {
    it(`${harness}: an over-ceiling child is switched to a tiergate tier agent`, async () => {
      const root = mkdtempSync(join(tmpdir(), 'tg-explain-retry-'));
      dirs.push(root);
      vi.stubEnv('HOME', join(root, 'home'));
      vi.stubEnv('TIERGATE_HOME', join(root, 'tg'));
      vi.stubEnv('TIERGATE_PRICE_REFRESH', 'off');
      clearRuntimeCache();
      const r = await runCaptured(
        (a) => explainCommand(a, HARNESSES),
        ['--harness', harness, '--parent', 'gemini-2.5-pro', '--child', 'gemini-3-pro-preview', '--json'],
      );
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.out) as { decision: { action: string; field?: string; value?: string } };
      expect(doc.decision).toMatchObject({ action: 'correct', field, value: 'tiergate-parent' });
    });
  }
});
