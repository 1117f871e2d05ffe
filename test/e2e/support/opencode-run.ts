/**
 * Runs the real opencode 1.18.33 headless in a throwaway home against the fake chat API, with tiergate's bundle as a
 * plugin. Outbound traffic is switched off: models.dev fetch, autoupdate, share, LSP downloads; and the start-up npm
 * install of @opencode-ai/plugin is pre-empted by seeding each config dir the way Npm.install checks it (node_modules
 * present and package-lock.json listing every package.json dependency: read from the 1.18.33 binary, seen skipping).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import {
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
  type Responder,
} from './fake-chat-api.js';
import { REPO, runProcess, tiergateEnv, writeTiergateConfig, type ProcessRun } from './sandbox.js';

/** tiergate's OpenCode plugin as the build makes it. */
export const OPENCODE_PLUGIN = join(REPO, 'dist/opencode.js');

export const OPENCODE_MODELS = {
  parent: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  big: { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
  small: { input: 0.25, output: 1.25, cache_read: 0.025, cache_write: 0.3125 },
  titler: { input: 0.1, output: 0.1 },
} as const;

export function seedConfigDir(dir: string): void {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  const deps = { '@opencode-ai/plugin': '1.18.33' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies: deps }));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: deps } } }),
  );
}

export type OpencodeRun = ProcessRun;

export type OpencodeSandbox = { root: string; project: string; tiergateHome: string; env: NodeJS.ProcessEnv };

export function makeSandbox(opts: {
  baseURL: string;
  pluginFile: string;
  agents?: Record<string, unknown>;
  tiergateConfig?: unknown;
}): OpencodeSandbox {
  const root = mkdtempSync(join(tmpdir(), 'tg-oc-'));
  const home = join(root, 'home');
  const cfgDir = join(root, 'opencode-config-dir');
  const project = join(root, 'project');
  const tiergateHome = join(root, 'tiergate');
  for (const d of [join(home, '.config', 'opencode'), cfgDir]) seedConfigDir(d);
  mkdirSync(project, { recursive: true });
  mkdirSync(join(project, '.git'), { recursive: true });
  const model = (name: string, cost: object) => ({
    name,
    cost,
    limit: { context: 200000, output: 32000 },
    tool_call: true,
    attachment: false,
    reasoning: false,
    temperature: true,
  });
  writeFileSync(
    join(project, 'opencode.json'),
    JSON.stringify(
      {
        $schema: 'https://opencode.ai/config.json',
        model: 'fake/parent',
        small_model: 'fake/titler',
        autoupdate: false,
        share: 'disabled',
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Fake',
            options: { baseURL: opts.baseURL, apiKey: 'dummy-key' },
            models: Object.fromEntries(Object.entries(OPENCODE_MODELS).map(([k, c]) => [k, model(k, c)])),
          },
        },
        agent: opts.agents ?? {
          pricey: {
            mode: 'subagent',
            description: 'Expensive subagent (fake/big)',
            model: 'fake/big',
            prompt: 'You are pricey.',
          },
          cheap: {
            mode: 'subagent',
            description: 'Cheap subagent (fake/small)',
            model: 'fake/small',
            prompt: 'You are cheap.',
          },
        },
        permission: { '*': 'allow' },
        plugin: [`file://${opts.pluginFile}`],
      },
      null,
      2,
    ),
  );
  writeTiergateConfig(tiergateHome, opts.tiergateConfig);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(root, 'cache'),
    OPENCODE_CONFIG_DIR: cfgDir,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
    // Any install attempt that slipped through would fail fast on loopback instead of reaching a registry.
    npm_config_registry: 'http://127.0.0.1:9/',
    // Loading tiergate starts the background price refresh: off (tiergateEnv), tests stay on loopback.
    ...tiergateEnv(tiergateHome),
  };
  return { root, project, tiergateHome, env };
}

export function runOpencode(
  bin: string,
  sb: OpencodeSandbox,
  prompt: string,
  extraEnv: NodeJS.ProcessEnv = {},
  timeoutMs = 280_000,
): Promise<OpencodeRun> {
  const args = ['run', '--print-logs', '--log-level', 'INFO', '--format', 'json', prompt];
  return runProcess(bin, args, { cwd: sb.project, env: { ...sb.env, ...extraEnv }, timeoutMs });
}

/** OpenCode asks its small model for a session title (a request with no tools); the suites answer it with this. */
export const TITLE_REPLY: Reply = { text: 'Demo title', usage: { prompt: 50, completion: 5 } };

/** A child's request: it has tools, but not `task` (the parent's dispatch tool); a title request has none. */
export const isOpencodeChild = (r: RecordedRequest): boolean => r.tools.length > 0 && !r.tools.includes('task');

/** The last request of the parent (the one offered `task`). */
export const lastParentRequest = (requests: RecordedRequest[]): RecordedRequest =>
  requests.filter((r) => r.tools.includes('task')).at(-1)!;

/** The `worker` subagent of the spend and limit suites, on the parent's own model (within the ceiling). */
export const WORKER_AGENT = {
  worker: {
    mode: 'subagent',
    description: 'A worker (fake/parent)',
    model: 'fake/parent',
    prompt: 'You are a worker.',
  },
};

/**
 * One `opencode run` of the spend and limit suites: tiergate's plugin and the `worker` agent, on the fake chat API
 * answering with respond, tiergateConfig as the user policy. The run must exit 0.
 */
export async function runOpencodeSession(
  bin: string,
  o: { respond: Responder; tiergateConfig: unknown; prompt: string },
): Promise<{ api: FakeChatApi; sb: OpencodeSandbox }> {
  const api = await startFakeChatApi(o.respond);
  const sb = makeSandbox({
    baseURL: api.baseURL,
    pluginFile: OPENCODE_PLUGIN,
    agents: WORKER_AGENT,
    tiergateConfig: o.tiergateConfig,
  });
  const res = await runOpencode(bin, sb, o.prompt);
  await api.close();
  expect(res.code, res.stderr.slice(-2000)).toBe(0);
  return { api, sb };
}
