/**
 * Runs the real Hermes Agent (hermes-agent 0.19.0 from PyPI, in the venv .ci/run makes at .cache/hermes-venv) headless
 * (`hermes chat -Q -q … --yolo`) in a throwaway HERMES_HOME against a fake chat-completions API on 127.0.0.1.
 * Off the network (seen in a loopback-only network namespace, docs/harnesses/hermes.md): tirith is off
 * (`security.tirith_enabled`, not the reference's `approval.`), title generation and the memory nudge are off, and the
 * OpenRouter metadata and models.dev caches are seeded fresh, so neither is fetched (0.19.0 fetched
 * openrouter.ai/api/v1/models at start without the first, which the reference does not list). Proxies point at a
 * closed loopback port for anything left over, so no attempt can leave 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { missing } from '../../support/ci.js';
import {
  contentText,
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
} from '../support/fake-chat-api.js';
import {
  closedProxyEnv,
  hostEnv,
  removeTree,
  runProcess,
  tiergateEnv,
  writeTiergateConfig,
  type ProcessRun,
} from '../support/sandbox.js';

export const REPO = join(import.meta.dirname, '../../..');
export const HERMES_VERSION = '0.19.0';
const VENV_BIN = join(REPO, '.cache', 'hermes-venv', 'bin');

/** The venv's `hermes`, else a skip outside CI and a failure under it (test/support/ci.ts). */
export function hermesBin(): string | null {
  const bin = join(VENV_BIN, 'hermes');
  if (existsSync(bin)) return bin;
  missing('[e2e] hermes', `${bin} absent: node scripts/install-hermes.mjs (hermes-agent==${HERMES_VERSION})`);
  return null;
}

export type HermesHome = {
  root: string;
  home: string;
  hermesHome: string;
  project: string;
  tiergateHome: string;
  cleanup(): void;
};

export function makeHermesHome(tiergateConfig?: unknown): HermesHome {
  const root = mkdtempSync(join(tmpdir(), 'tg-hermes-e2e-'));
  const home = join(root, 'home');
  const hermesHome = join(home, '.hermes');
  const project = join(root, 'project');
  const tiergateHome = join(root, 'tiergate');
  for (const d of [join(hermesHome, 'cache'), project, tiergateHome]) mkdirSync(d, { recursive: true });
  writeTiergateConfig(tiergateHome, tiergateConfig);
  // Fresh (mtime now) and non-empty: Hermes 0.19.0 reads these instead of fetching openrouter.ai and models.dev.
  writeFileSync(
    join(hermesHome, 'cache', 'openrouter_model_metadata.json'),
    JSON.stringify({
      'tiergate-e2e': { context_length: 128000, max_completion_tokens: 4096, name: 'e2e', pricing: {} },
    }),
  );
  writeFileSync(
    join(hermesHome, 'models_dev_cache.json'),
    JSON.stringify({ 'tiergate-e2e': { id: 'tiergate-e2e', models: {} } }),
  );
  writeFileSync(join(hermesHome, '.env'), 'OPENAI_API_KEY=sk-test\n');
  return {
    root,
    home,
    hermesHome,
    project,
    tiergateHome,
    cleanup: () => removeTree(root),
  };
}

/** config.yaml: the parent on the fake API, `delegation` as given, the start-up downloads and side calls off. */
export function hermesConfig(apiUrl: string, parent: string, delegation: Record<string, string>): string {
  const deleg = Object.entries(delegation);
  return [
    '# e2e config (a comment install and uninstall must keep)',
    'model:',
    '  provider: custom',
    `  default: ${parent}`,
    `  base_url: "${apiUrl}"`,
    '  api_key: sk-test',
    ...(deleg.length ? ['delegation:', ...deleg.map(([k, v]) => `  ${k}: "${v}"`)] : []),
    'security:',
    '  tirith_enabled: false',
    'auxiliary:',
    '  title_generation:',
    '    enabled: false',
    'memory:',
    '  nudge_interval: 0',
    '',
  ].join('\n');
}

export function hermesEnv(h: HermesHome, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...hostEnv(['PATH', 'LANG', 'TMPDIR']),
    TERM: 'dumb',
    HOME: h.home,
    HERMES_HOME: h.hermesHome,
    TIRITH_ENABLED: '0',
    ...tiergateEnv(h.tiergateHome),
    ...closedProxyEnv(),
    ...extra,
  };
}

export function runHermes(bin: string, h: HermesHome, prompt: string, env: NodeJS.ProcessEnv): Promise<ProcessRun> {
  return runProcess(bin, ['chat', '-Q', '-q', prompt, '--yolo'], { cwd: h.project, env, timeoutMs: 150_000 });
}

/** tiergate's own CLI in the sandbox (install, uninstall, report). */
export function tiergate(h: HermesHome, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(process.execPath, [join(REPO, 'dist/cli.js'), ...args], {
    encoding: 'utf8',
    cwd: h.project,
    // Wide: tests match one-line messages (output wraps to COLUMNS otherwise).
    env: {
      ...hostEnv(),
      COLUMNS: '1000',
      HOME: h.home,
      HERMES_HOME: h.hermesHome,
      ...tiergateEnv(h.tiergateHome),
      ...env,
    },
  });
}

export const PARENT = 'gpt-4o';
export const PRICEY = 'claude-opus-4-1';
export const CHEAP = 'gpt-4o-mini';
export const POLICY = { tiers: { hermes: { cheap: CHEAP } } };
const CHILD_GOAL = 'E2E-CHILD: do the task and report.';

export const isChild = (q: RecordedRequest) =>
  q.messages.some((m) => m.role === 'user' && contentText(m.content).includes('E2E-CHILD'));

/** The fake parent delegates once, then stays busy while the child answers (its `Result:`/`Verified:` lines). */
function responder(): (req: RecordedRequest) => Reply {
  return (req) => {
    if (isChild(req))
      return { text: 'E2E child finished.\nResult: done\nVerified: yes', usage: { prompt: 300, completion: 30 } };
    const tools = req.messages.filter((m) => m.role === 'tool').length;
    if (tools === 0)
      return {
        toolCalls: [{ name: 'delegate_task', id: 'call_e2e_1', args: { goal: CHILD_GOAL, context: 'e2e' } }],
        usage: { prompt: 1000, completion: 50 },
      };
    // Keeps the parent busy while the background child runs (0.19.0's one-shot mode does not wait for it).
    if (tools === 1) return { toolCalls: [{ name: 'terminal', id: 'call_e2e_2', args: { command: 'sleep 3' } }] };
    return { text: 'PARENT_FINAL', usage: { prompt: 1200, completion: 10 } };
  };
}

export type Run = { api: FakeChatApi; home: HermesHome; code: number | null; stderr: string };

/**
 * One delegation: the fake API, a sandbox with `delegation` in config.yaml (`base_url: 'API'` = the fake API) and the
 * policy, tiergate installed (then `setup`), and `hermes chat -q` run to its end. The sandbox is pushed on `homes`.
 */
export async function delegation(
  bin: string,
  o: { delegation: Record<string, string>; policy?: unknown; setup?: (h: HermesHome) => void },
  homes: HermesHome[],
): Promise<Run> {
  const api = await startFakeChatApi(responder());
  const home = makeHermesHome(o.policy ?? POLICY);
  homes.push(home);
  const deleg = { ...o.delegation };
  if (deleg.base_url === 'API') deleg.base_url = api.baseURL;
  writeFileSync(join(home.hermesHome, 'config.yaml'), hermesConfig(api.baseURL, PARENT, deleg));
  tiergate(home, ['install', 'hermes']);
  o.setup?.(home);
  const r = await runHermes(bin, home, 'E2E-PARENT: delegate the task.', hermesEnv(home));
  await api.close();
  return { api, home, code: r.code, stderr: r.stderr };
}

export const children = (r: Run) => r.api.requests.filter(isChild);

/** Rows of tiergate's ledger, after `tiergate <drainWith>` (any CLI run drains the spool first; default a report). */
export function ledger(
  h: HermesHome,
  sql: string,
  drainWith: string[] = ['report', '--json'],
): Record<string, unknown>[] {
  tiergate(h, drainWith);
  const file = join(h.tiergateHome, 'data', 'ledger.sqlite');
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}
