/**
 * Runs the real Gemini CLI (0.61.0) headless in a throwaway HOME against a fake Gemini API on 127.0.0.1
 * (reference/gemini-cli.md §1): API-key auth selected in settings (GOOGLE_GEMINI_BASE_URL alone selects `gateway`,
 * which headless mode refuses: exit 41), the workspace trusted by environment (else exit 55), usage statistics,
 * telemetry and auto-update off, and proxies on a closed loopback port so anything else fails on the machine.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineEnv, type ProcessRun, removeTree, runProcess } from '../support/sandbox.js';

export type GeminiHome = { root: string; home: string; gemini: string; cleanup(): void };

/** Settings every run needs; `extra` is merged at the top level (hooks for the runs without the extension). */
export function writeSettings(h: GeminiHome, extra: Record<string, unknown> = {}): void {
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    telemetry: { enabled: false },
    ...extra,
  };
  writeFileSync(join(h.gemini, 'settings.json'), JSON.stringify(settings, null, 2));
}

export function makeGeminiHome(prefix = 'tg-gemini-'): GeminiHome {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const gemini = join(home, '.gemini');
  mkdirSync(gemini, { recursive: true });
  const h = { root, home, gemini, cleanup: () => removeTree(root) };
  writeSettings(h);
  return h;
}

/** A project folder of its own (Gemini keeps its chats per project, named by the folder) and a tiergate home. */
export function makeProject(h: GeminiHome, name: string): { project: string; tiergateHome: string } {
  const project = join(h.root, name);
  const tiergateHome = join(h.root, `tg-${name}`);
  mkdirSync(project, { recursive: true });
  mkdirSync(tiergateHome, { recursive: true });
  return { project, tiergateHome };
}

export function writeAgent(dir: string, name: string, model: string | null): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${name}.md`),
    `---\nname: ${name}\ndescription: "The ${name} e2e agent"\nkind: local\n${model ? `model: ${model}\n` : ''}max_turns: 5\n---\nDo the task, then call complete_task.\n`,
  );
}

/** Port 9 (discard) is closed on loopback: a proxied connection fails at once and stays on the machine. */
export function geminiEnv(
  h: GeminiHome,
  tiergateHome: string,
  apiUrl: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    ...offlineEnv(tiergateHome, ['PATH', 'LANG', 'TERM', 'TMPDIR']),
    HOME: h.home,
    GEMINI_API_KEY: 'e2e-dummy-key',
    GOOGLE_GEMINI_BASE_URL: apiUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    ...extra,
  };
}

export function runGemini(
  bin: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  model = 'gemini-2.5-pro',
): Promise<ProcessRun> {
  return runProcess(
    bin,
    [
      '-p',
      'E2E-PARENT: delegate the e2e task to a subagent.',
      '--output-format',
      'json',
      '-m',
      model,
      '--approval-mode',
      'yolo',
    ],
    { cwd, env, timeoutMs: 90_000 },
  );
}
