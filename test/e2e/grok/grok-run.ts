/**
 * Runs the real Grok Build (1.0.41, pinned by scripts/install-harnesses.mjs) headless in a throwaway HOME and GROK_HOME
 * against a fake chat-completions API on 127.0.0.1: every model (the parent's, the children's) is a `[model.<id>]`
 * table pointing at the fake API with a dummy key, so no login is needed (reference/grok.md B.5). Telemetry, error
 * reporting, feedback and auto-update are off (env and config.toml), and proxies point at a closed loopback port for
 * anything left over. Under strace in a loopback-only network namespace, 1.0.41 so set up connected to nothing but the
 * fake API (docs/grok.md).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HarnessHome, makeHarnessHome, offlineEnv, REPO } from '../support/sandbox.js';

export { REPO };

export type GrokHome = HarnessHome<'grokHome'>;

export function makeGrokHome(tiergateConfig?: unknown): GrokHome {
  return makeHarnessHome('tg-grok-e2e-', '.grok', 'grokHome', tiergateConfig);
}

/** config.toml: telemetry and auto-update off, each model a table on the fake API, then `extra` (subagents tables). */
export function writeGrokConfig(h: GrokHome, apiUrl: string, models: readonly string[], extra = ''): void {
  const tables = models
    .map(
      (m) =>
        `[model."${m}"]\nbase_url = "${apiUrl}"\napi_key = "sk-dummy"\napi_backend = "chat_completions"\ncontext_window = 128000\n`,
    )
    .join('\n');
  writeFileSync(
    join(h.grokHome, 'config.toml'),
    `auto_update = false\n\n[features]\ntelemetry = false\n\n${tables}\n${extra}`,
  );
}

export function grokEnv(h: GrokHome, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...offlineEnv(h.tiergateHome, ['PATH', 'LANG', 'TMPDIR']),
    TERM: 'dumb',
    HOME: h.home,
    GROK_HOME: h.grokHome,
    GROK_TELEMETRY_ENABLED: '0',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    GROK_FEEDBACK_ENABLED: '0',
    GROK_DISABLE_AUTOUPDATER: '1',
    ...extra,
  };
}

/** tiergate's own CLI in the sandbox (install, report, doctor). */
export function tiergate(h: GrokHome, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(process.execPath, [join(REPO, 'dist/cli.js'), ...args], {
    encoding: 'utf8',
    cwd: h.project,
    env: {
      PATH: process.env.PATH,
      HOME: h.home,
      GROK_HOME: h.grokHome,
      TIERGATE_HOME: h.tiergateHome,
      TIERGATE_PRICE_REFRESH: 'off',
      ...env,
    },
  });
}

/** `grok -p` headless with every tool approved (reference B.5). */
export const promptArgs = (prompt: string, model: string): string[] => [
  '-p',
  prompt,
  '-m',
  model,
  '--output-format',
  'json',
  '--no-auto-update',
  '--always-approve',
];
