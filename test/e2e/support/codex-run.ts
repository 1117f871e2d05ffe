/**
 * Runs the real Codex CLI headless in a throwaway HOME/CODEX_HOME against a fake Responses API on 127.0.0.1, with
 * every start-up feature that reaches off the machine switched off (reference/codex.md §1 and §9.11, seen on 0.169.0):
 * update check off, analytics off, chatgpt_base_url on a closed loopback port, and proxies pointing at a closed
 * loopback port so that anything left over (the curated plugin sync when plugins are on) fails locally.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import {
  startFakeResponsesApi,
  type FakeResponsesApi,
  type FunctionCallReply,
  type Script,
} from './fake-responses-api.js';
import { type HarnessHome, makeHarnessHome, offlineEnv, REPO, runProcess, writeTiergateConfig } from './sandbox.js';

export type CodexHome = HarnessHome<'codexHome'>;

export function makeCodexHome(prefix = 'tg-codex-'): CodexHome {
  return makeHarnessHome(prefix, '.codex', 'codexHome');
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

/** The shipped hooks-codex.json with ${PLUGIN_ROOT} pointing at root (what Codex does for a plugin). */
export function shippedCodexHooks(root = REPO): unknown {
  const text = readFileSync(join(REPO, 'hooks-codex.json'), 'utf8').replaceAll('${PLUGIN_ROOT}', root);
  return (JSON.parse(text) as { hooks: unknown }).hooks;
}

export function codexEnv(h: CodexHome, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    // SessionStart starts a price refresh; off here (offlineEnv) so no run reaches for the default sources.
    ...offlineEnv(h.tiergateHome, ['PATH', 'LANG', 'TERM', 'TMPDIR', 'NODE_OPTIONS']),
    HOME: h.home,
    CODEX_HOME: h.codexHome,
    FAKE_OPENAI_KEY: 'sk-dummy',
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

/** A `collaboration` tool call the fake model makes (spawn_agent, wait_agent: the names Codex 0.169.0 gives them). */
export const collaborationCall = (name: string, args: Record<string, unknown>, callId: string): FunctionCallReply => ({
  type: 'call',
  namespace: 'collaboration',
  name,
  args,
  callId,
});

/** spawn_agent's arguments for a fresh (unforked) child named task. */
export const spawnAgentArgs = (task: string, model: string, message = `CHILD_TASK: ${task}`) => ({
  task_name: task,
  message,
  model,
  reasoning_effort: 'low',
  fork_turns: 'none',
});

/** A request of a child agent (Codex names the parent /root). */
export const isCodexChild = (q: { agentName: string | null }): boolean =>
  q.agentName !== null && q.agentName !== '/root';

/**
 * One `codex exec` of the spend and limit suites: a gpt-6-sol parent on the fake Responses API playing script,
 * tiergate's shipped hooks, tiergateConfig as the user policy. The run must exit 0; the home goes when the test ends.
 */
export async function runCodexSession(
  bin: string,
  o: { script: Script; prompt: string; tiergateConfig?: unknown },
): Promise<{ api: FakeResponsesApi; home: CodexHome }> {
  const api = await startFakeResponsesApi(o.script);
  const home = makeCodexHome();
  onTestFinished(() => home.cleanup());
  writeCodexConfig(home, { apiUrl: api.url, model: 'gpt-6-sol' });
  writeHooksJson(home, shippedCodexHooks());
  writeTiergateConfig(home.tiergateHome, o.tiergateConfig);
  const r = await runCodex(bin, execArgs(o.prompt), { cwd: home.project, env: codexEnv(home), timeoutMs: 120_000 });
  await api.close();
  expect(r.code, r.stderr.slice(-2000)).toBe(0);
  return { api, home };
}
