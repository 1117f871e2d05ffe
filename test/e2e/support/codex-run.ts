/**
 * Runs the real Codex CLI headless in a throwaway HOME/CODEX_HOME against a fake Responses API on 127.0.0.1, with
 * every start-up feature that reaches off the machine switched off (reference/codex.md §1 and §9.11, seen on 0.169.0):
 * update check off, analytics off, chatgpt_base_url on a closed loopback port, and proxies pointing at a closed
 * loopback port so that anything left over (the curated plugin sync when plugins are on) fails locally.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostEnv, runProcess, tiergateEnv } from './sandbox.js';

export type CodexHome = {
  root: string;
  home: string;
  codexHome: string;
  project: string;
  tiergateHome: string;
  cleanup(): void;
};

export function makeCodexHome(prefix = 'tg-codex-'): CodexHome {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const codexHome = join(home, '.codex');
  const project = join(root, 'project');
  const tiergateHome = join(root, 'tiergate');
  for (const d of [codexHome, project, tiergateHome]) mkdirSync(d, { recursive: true });
  return {
    root,
    home,
    codexHome,
    project,
    tiergateHome,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export type ConfigOptions = { apiUrl: string; model: string; plugins?: boolean; extra?: string };

export function writeCodexConfig(h: CodexHome, o: ConfigOptions): void {
  const toml = `model = "${o.model}"
model_provider = "fake"
check_for_update_on_startup = false
chatgpt_base_url = "http://127.0.0.1:9/"
${o.extra ?? ''}

[analytics]
enabled = false

[features]
plugins = ${o.plugins ? 'true' : 'false'}

[model_providers.fake]
name = "fake"
base_url = "${o.apiUrl}"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0
`;
  writeFileSync(join(h.codexHome, 'config.toml'), toml);
}

export function writeHooksJson(h: CodexHome, hooks: unknown): void {
  writeFileSync(join(h.codexHome, 'hooks.json'), JSON.stringify({ hooks }, null, 2));
}

/** Port 9 (discard) is closed on loopback here: a proxied connection fails at once and stays on the machine. */
const CLOSED = 'http://127.0.0.1:9';

export function codexEnv(h: CodexHome, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...hostEnv(['PATH', 'LANG', 'TERM', 'TMPDIR', 'NODE_OPTIONS']),
    HOME: h.home,
    CODEX_HOME: h.codexHome,
    // SessionStart starts a price refresh; off here so no run reaches for the default (non-loopback) sources.
    ...tiergateEnv(h.tiergateHome),
    FAKE_OPENAI_KEY: 'sk-dummy',
    HTTPS_PROXY: CLOSED,
    HTTP_PROXY: CLOSED,
    ALL_PROXY: CLOSED,
    https_proxy: CLOSED,
    http_proxy: CLOSED,
    all_proxy: CLOSED,
    NO_PROXY: '127.0.0.1,localhost,::1',
    no_proxy: '127.0.0.1,localhost,::1',
    RUST_LOG: 'error',
    ...extra,
  };
}

export type RunResult = {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  events: Record<string, unknown>[];
};

export async function runCodex(
  bin: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  const run = await runProcess(bin, args, { cwd: opts.cwd, env: opts.env, timeoutMs: opts.timeoutMs ?? 90_000 });
  const events: Record<string, unknown>[] = [];
  for (const line of run.stdout.split('\n')) {
    try {
      if (line.trim()) events.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      /* not JSON */
    }
  }
  return { ...run, events };
}

/** `codex exec` with hooks trusted for this invocation only (tests; a user reviews hooks with /hooks). */
export function execArgs(prompt: string, extra: string[] = []): string[] {
  return [
    'exec',
    '--skip-git-repo-check',
    '--json',
    '--dangerously-bypass-approvals-and-sandbox',
    '--dangerously-bypass-hook-trust',
    ...extra,
    prompt,
  ];
}
