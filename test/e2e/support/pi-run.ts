/**
 * Runs the real pi (0.73.1, or 1.6.0 under Node 22: pi-lines.ts) headless (`--mode json -p`) in a throwaway agent dir against the fake chat API, with pi's
 * own example `subagent` tool (-e) and tiergate installed the pi way (settings.json `extensions`), so child `pi`
 * processes load tiergate too. PI_OFFLINE, PI_SKIP_VERSION_CHECK and PI_TELEMETRY=0 keep it off the network (pi.md §1).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { startFakeChatApi, type FakeChatApi, type Responder } from './fake-chat-api.js';
import type { PiLine } from './pi-lines.js';
import { REPO, runProcess, tiergateEnv, writeTiergateConfig, type ProcessRun } from './sandbox.js';

/** tiergate's pi extension as the build makes it. */
export const PI_EXTENSION = join(REPO, 'dist/pi.js');

/** pi 0.73.1's own example `subagent` tool, shipped in its package beside the binary. */
export const piExampleTool = (bin: string): string =>
  join(bin, '../../@mariozechner/pi-coding-agent/examples/extensions/subagent/index.ts');

const model = (id: string, cost: [number, number, number, number]) => ({
  id,
  name: id,
  reasoning: false,
  input: ['text'],
  contextWindow: 200000,
  maxTokens: 32000,
  cost: { input: cost[0], output: cost[1], cacheRead: cost[2], cacheWrite: cost[3] },
});

export type PiSandbox = {
  root: string;
  project: string;
  agentDir: string;
  tiergateHome: string;
  env: NodeJS.ProcessEnv;
};

export function makePiSandbox(opts: {
  baseURL: string;
  extension: string;
  agents: Record<string, string | null>;
  tiergateConfig?: unknown;
  /** The `node` pi runs under (pi-lines.ts); default: the test's own. */
  nodeDir?: string;
}): PiSandbox {
  const root = mkdtempSync(join(tmpdir(), 'tg-pi-'));
  const agentDir = join(root, 'pi-agent');
  const project = join(root, 'project');
  const tiergateHome = join(root, 'tiergate');
  mkdirSync(join(agentDir, 'agents'), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(agentDir, 'models.json'),
    JSON.stringify({
      providers: {
        fake: {
          baseUrl: opts.baseURL,
          api: 'openai-completions',
          apiKey: 'dummy-key',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [
            model('parent', [3, 15, 0.3, 3.75]),
            model('big', [15, 75, 1.5, 18.75]),
            model('small', [0.25, 1.25, 0.025, 0.3125]),
          ],
        },
      },
    }),
  );
  writeFileSync(
    join(agentDir, 'settings.json'),
    JSON.stringify({ defaultProvider: 'fake', defaultModel: 'parent', extensions: [opts.extension] }),
  );
  for (const [name, m] of Object.entries(opts.agents)) {
    writeFileSync(
      join(agentDir, 'agents', `${name}.md`),
      `---\nname: ${name}\ndescription: ${name} agent\n${m ? `model: ${m}\n` : ''}---\nYou are the ${name} agent.\n`,
    );
  }
  writeTiergateConfig(tiergateHome, opts.tiergateConfig);
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: `${opts.nodeDir ?? dirname(process.execPath)}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
    PI_TELEMETRY: '0',
    // Loading tiergate starts the background price refresh: off (tiergateEnv), tests stay on loopback.
    ...tiergateEnv(tiergateHome),
  };
  return { root, project, agentDir, tiergateHome, env };
}

export type PiRun = ProcessRun;

export function runPi(
  bin: string,
  sb: PiSandbox,
  args: string[],
  prompt: string,
  extraEnv: NodeJS.ProcessEnv = {},
  timeoutMs = 120_000,
): Promise<PiRun> {
  return runProcess(bin, ['--mode', 'json', '-p', ...args, prompt], {
    cwd: sb.project,
    env: { ...sb.env, ...extraEnv },
    timeoutMs,
  });
}

/**
 * One `pi -p` of the spend and limit suites: pi 0.73.1 with its example `subagent` tool and tiergate's extension, on
 * the fake chat API answering with respond, tiergateConfig as the user policy. The run must exit 0.
 */
export async function runPiSession(
  bin: string,
  o: { respond: Responder; agents: Record<string, string | null>; tiergateConfig: unknown; prompt: string },
  /** Another pi line (pi-lines.ts: its Node and its example tool); default pi 0.73.1 at `bin` under the test's Node. */
  line?: Pick<PiLine, 'nodeDir' | 'exampleTool'>,
): Promise<{ api: FakeChatApi; sb: PiSandbox }> {
  const api = await startFakeChatApi(o.respond);
  const sb = makePiSandbox({
    baseURL: api.baseURL,
    extension: PI_EXTENSION,
    agents: o.agents,
    tiergateConfig: o.tiergateConfig,
    ...(line ? { nodeDir: line.nodeDir } : {}),
  });
  const res = await runPi(bin, sb, ['-e', line?.exampleTool ?? piExampleTool(bin)], o.prompt);
  await api.close();
  expect(res.code, res.stderr.slice(-2000)).toBe(0);
  return { api, sb };
}
