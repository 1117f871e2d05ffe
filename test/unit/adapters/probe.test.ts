/** `install --all` finds a harness by what its installer's probe names (HarnessModule.installer.probe). */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESS_IDS, type Harness } from '../../../src/contracts/harness.js';
import { detectHarness } from '../../../src/cli/install/detect.js';
import type { InstallContext } from '../../../src/install/plan.js';

const ctxIn = (home: string, env: Record<string, string> = {}): InstallContext => ({
  env: { PATH: '', HOME: home, ...env },
  home,
  pkgRoot: '/nonexistent',
  version: '0.0.0',
});

/** Where each harness keeps its config when no variable moves it. */
const HOME_DIRS: Record<Harness, string[]> = {
  claude: ['.claude'],
  codex: ['.codex'],
  cursor: ['.cursor'],
  opencode: ['.config', 'opencode'],
  pi: ['.pi', 'agent'],
  gemini: ['.gemini'],
  copilot: ['.copilot'],
  grok: ['.grok'],
  hermes: ['.hermes'],
};

describe('install --all detection', () => {
  it.each(HARNESS_IDS)('%s: found by its config dir, and not found without it', (h) => {
    const home = mkdtempSync(join(tmpdir(), 'tg-probe-'));
    expect(detectHarness(ctxIn(home), h).found).toBe(false);
    mkdirSync(join(home, ...HOME_DIRS[h]), { recursive: true });
    expect(detectHarness(ctxIn(home), h)).toEqual({ found: true, how: `${join(home, ...HOME_DIRS[h])} exists` });
  });

  it('follows the variables that move a config dir', () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-probe-'));
    const moved = join(home, 'elsewhere');
    mkdirSync(moved);
    for (const [h, v] of [
      ['claude', 'CLAUDE_CONFIG_DIR'],
      ['codex', 'CODEX_HOME'],
      ['opencode', 'OPENCODE_CONFIG_DIR'],
      ['pi', 'PI_CODING_AGENT_DIR'],
      ['copilot', 'COPILOT_HOME'],
      ['grok', 'GROK_HOME'],
    ] as const) {
      expect(detectHarness(ctxIn(home, { [v]: moved }), h)).toEqual({ found: true, how: `${moved} exists` });
    }
  });
});
