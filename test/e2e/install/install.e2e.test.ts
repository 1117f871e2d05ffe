/**
 * `tiergate install` / `uninstall` against the real Claude Code 2.1.328, Codex 0.169.0, OpenCode 1.18.33 and pi 0.73.1,
 * each in a throwaway home, from a tarball of this checkout installed like a user would. Each harness must list or
 * load tiergate afterwards (its own listing command), and uninstall must leave the user's file byte-identical.
 * Loopback only: update checks, telemetry, models fetch and plugin-marketplace sync are switched off, and proxies point
 * at a closed loopback port so anything that slips through fails locally.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { CLOSED, closedProxyEnv } from '../support/sandbox.js';
import { packAndInstall } from '../../support/packed.js';

let installed = '';

/** Bytes of every file under `dir` (links not followed). */
function treeBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) n += lstatSync(join(e.parentPath, e.name)).size;
  return n;
}
beforeAll(() => {
  installed = packAndInstall().installed;
}, 600_000);

function home(extra: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'tg-e2e-install-'));
  const h = join(root, 'home');
  mkdirSync(h, { recursive: true });
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
    HOME: h,
    XDG_CONFIG_HOME: join(h, '.config'),
    XDG_DATA_HOME: join(h, '.local', 'share'),
    XDG_STATE_HOME: join(h, '.local', 'state'),
    XDG_CACHE_HOME: join(root, 'cache'),
    TIERGATE_HOME: join(root, 'tiergate'),
    ...closedProxyEnv(),
    TIERGATE_PRICE_REFRESH: 'off',
    npm_config_registry: `${CLOSED}/`,
    ...extra,
  };
  return { root, home: h, env };
}

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const run = (bin: string, args: string[], env: Record<string, string>, cwd?: string, timeout = 120_000) =>
  spawnSync(bin, args, { encoding: 'utf8', env, cwd, timeout });

function tiergate(env: Record<string, string>, ...args: string[]) {
  const r = run(process.execPath, [join(installed, 'dist', 'cli.js'), ...args, '--json'], env);
  let out: {
    harnesses?: { harness: string; status: string; problems: string[]; actions: string[] }[];
    checks?: { name: string; status: string; detail: string }[];
  } = {};
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new Error(`tiergate ${args.join(' ')}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return { ...r, out };
}

/**
 * The diagnostic lines a harness run wrote from tiergate's bundle, proof that the harness loaded it (neither OpenCode nor
 * pi says which plugins it loads). The fault comes from outside: at load the bundle starts the price refresh, which
 * reads the policy first (also when the refresh is switched off), and a policy section of the wrong type is one
 * diagnostic line from inside the harness's process. The file goes again before anything else reads the policy.
 */
function loadDiagnostics(env: Record<string, string>, runHarness: () => void): string[] {
  const config = join(env.TIERGATE_HOME!, 'config', 'config.json');
  const log = join(env.TIERGATE_HOME!, 'data', 'diagnostics.log');
  const before = existsSync(log) ? readFileSync(log, 'utf8').length : 0;
  put(config, '{ "observer": { "tailBytes": "lots" } }');
  try {
    runHarness();
  } finally {
    rmSync(config);
  }
  return (existsSync(log) ? readFileSync(log, 'utf8').slice(before) : '').split('\n').filter(Boolean);
}

function doctorFor(env: Record<string, string>, harness: string) {
  return tiergate(env, 'doctor').out.checks!.find((c) => c.name === harness)!;
}

describe('Claude Code', () => {
  const b = harnessBin('claude');
  it('installs through its plugin marketplace, lists tiergate from the package, and uninstall restores settings.json', () => {
    if (!b.ok) throw new Error(b.reason);
    const sb = home({
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      TIERGATE_CLAUDE_BIN: b.bin,
    });
    sb.env.CLAUDE_CONFIG_DIR = join(sb.home, 'claude-cfg');
    const settings = join(sb.env.CLAUDE_CONFIG_DIR, 'settings.json');
    const original = '{\n\t"model": "sonnet",\n\t"permissions": { "allow": ["Bash(ls)"] }\n}\n';
    put(settings, original);

    const ins = tiergate(sb.env, 'install', 'claude', '--run');
    expect(ins.out.harnesses![0]!.status, ins.out.harnesses![0]!.problems.join('; ')).toBe('done');
    const list = JSON.parse(run(b.bin, ['plugin', 'list', '--json'], sb.env).stdout) as {
      id: string;
      enabled: boolean;
      readFromFolder: string;
      version: string;
    }[];
    const tg = list.find((p) => p.id.startsWith('tiergate@'));
    // The marketplace's plugin is the slim payload (issue 34 item 6), read in place; the copy Claude Code makes in its
    // cache holds no more than it.
    expect(tg).toMatchObject({ enabled: true, readFromFolder: join(installed, 'harness-plugin') });
    const cache = join(sb.env.CLAUDE_CONFIG_DIR, 'plugins', 'cache', 'tiergate', 'tiergate');
    expect(existsSync(cache)).toBe(true);
    const cached = treeBytes(cache);
    process.stdout.write(`claude plugin cache copy: ${(cached / 1e6).toFixed(1)} MB\n`);
    expect(cached).toBeLessThan(10e6);
    expect(tg!.version).toBe(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version);
    expect(JSON.parse(readFileSync(settings, 'utf8')).model).toBe('sonnet');
    expect(doctorFor(sb.env, 'claude').status).toBe('ok');
    // Idempotent.
    expect(tiergate(sb.env, 'install', 'claude', '--run').out.harnesses![0]!.status).toBe('unchanged');

    const un = tiergate(sb.env, 'uninstall', 'claude', '--run');
    expect(un.out.harnesses![0]!.status, un.out.harnesses![0]!.problems.join('; ')).toBe('done');
    expect(readFileSync(settings, 'utf8')).toBe(original);
    expect(existsSync(cache)).toBe(false);
    expect(JSON.stringify(un.out)).toContain("Claude Code's copy of the plugin");
    // Claude Code 2.1.332 lists its own built-in plugins (`cc-plugin-*@builtin`) too (seen; 2.1.328 listed none).
    const left = JSON.parse(run(b.bin, ['plugin', 'list', '--json'], sb.env).stdout) as { id: string }[];
    expect(left.filter((p) => !p.id.endsWith('@builtin'))).toEqual([]);
  });

  it('--statusline: Claude Code keeps the statusLine install set, and uninstall gives back the exact bytes', () => {
    if (!b.ok) throw new Error(b.reason);
    const sb = home({
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      TIERGATE_CLAUDE_BIN: b.bin,
    });
    sb.env.CLAUDE_CONFIG_DIR = join(sb.home, 'claude-cfg');
    const settings = join(sb.env.CLAUDE_CONFIG_DIR, 'settings.json');
    const original = '{\n\t"model": "sonnet"\n}\n';
    put(settings, original);
    const ins = tiergate(sb.env, 'install', 'claude', '--run', '--statusline');
    expect(ins.out.harnesses![0]!.status, ins.out.harnesses![0]!.problems.join('; ')).toBe('done');
    // After Claude Code's own commands rewrote the file, the statusLine is still there, running the package's bundle.
    const line = JSON.parse(readFileSync(settings, 'utf8')).statusLine as { type: string; command: string };
    expect(line.type).toBe('command');
    expect(line.command).toContain(join(installed, 'dist', 'statusline.cjs'));
    const shown = spawnSync('sh', ['-c', line.command], {
      input: JSON.stringify({ session_id: 'e2e-session' }),
      env: sb.env,
      encoding: 'utf8',
    });
    expect(shown.stdout).toMatch(/^tiergate: subagents \$0 · 0 corrected\n$/);
    const un = tiergate(sb.env, 'uninstall', 'claude', '--run');
    expect(un.out.harnesses![0]!.status, un.out.harnesses![0]!.problems.join('; ')).toBe('done');
    expect(readFileSync(settings, 'utf8')).toBe(original);
  });

  it('with no settings.json before, uninstall leaves none', () => {
    if (!b.ok) throw new Error(b.reason);
    const sb = home({
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      TIERGATE_CLAUDE_BIN: b.bin,
    });
    sb.env.CLAUDE_CONFIG_DIR = join(sb.home, '.claude');
    expect(tiergate(sb.env, 'install', 'claude', '--run').out.harnesses![0]!.status).toBe('done');
    expect(existsSync(join(sb.env.CLAUDE_CONFIG_DIR, 'settings.json'))).toBe(true);
    expect(tiergate(sb.env, 'uninstall', 'claude', '--run').out.harnesses![0]!.status).toBe('done');
    expect(existsSync(join(sb.env.CLAUDE_CONFIG_DIR, 'settings.json'))).toBe(false);
  });
});

describe('Codex', () => {
  const b = harnessBin('codex');
  it('installs through its plugin marketplace, lists tiergate, never grants hook trust, and uninstall restores config.toml', () => {
    if (!b.ok) throw new Error(b.reason);
    const sb = home({ TIERGATE_CODEX_BIN: b.bin });
    sb.env.CODEX_HOME = join(sb.home, 'codex-home');
    const cfg = join(sb.env.CODEX_HOME, 'config.toml');
    // codex.md §1 and trap 11: no update check, no ChatGPT/analytics traffic.
    const original =
      '# my codex config\r\nmodel = "gpt-6-astra"\r\ncheck_for_update_on_startup = false\r\nchatgpt_base_url = "http://127.0.0.1:9/"\r\n\r\n[analytics]\r\nenabled = false\r\n';
    put(cfg, original);

    const ins = tiergate(sb.env, 'install', 'codex', '--run');
    const row = ins.out.harnesses![0]! as { status: string; problems: string[]; notes?: string[] };
    expect(row.status, row.problems.join('; ')).toBe('done');
    expect(JSON.stringify(ins.out)).toContain('/hooks');
    const list = JSON.parse(run(b.bin, ['plugin', 'list', '--json'], sb.env).stdout) as {
      installed: { pluginId: string; enabled: boolean; source: { path: string } }[];
    };
    expect(list.installed.find((p) => p.pluginId.startsWith('tiergate@'))).toMatchObject({
      enabled: true,
      source: { path: join(installed, 'harness-plugin') },
    });
    // Codex runs the hooks from its copy: the slim payload, with the SQLite binding its session-end drain loads.
    const cache = join(sb.env.CODEX_HOME, 'plugins', 'cache', 'tiergate', 'tiergate');
    const cached = treeBytes(cache);
    process.stdout.write(`codex plugin cache copy: ${(cached / 1e6).toFixed(1)} MB\n`);
    expect(cached).toBeLessThan(10e6);
    expect(readdirSync(cache).some((v) => existsSync(join(cache, v, 'node_modules', 'better-sqlite3', 'lib')))).toBe(
      true,
    );
    // Trust is the user's: tiergate wrote no hook-trust state anywhere in config.toml.
    expect(readFileSync(cfg, 'utf8')).not.toMatch(/trust/i);
    expect(doctorFor(sb.env, 'codex').status).toBe('ok');

    const un = tiergate(sb.env, 'uninstall', 'codex', '--run');
    expect(un.out.harnesses![0]!.status, un.out.harnesses![0]!.problems.join('; ')).toBe('done');
    expect(readFileSync(cfg, 'utf8')).toBe(original);
    expect(JSON.parse(run(b.bin, ['plugin', 'list', '--json'], sb.env).stdout).installed).toEqual([]);
    expect(existsSync(cache) ? treeBytes(cache) : 0).toBe(0);
  });
});

describe('OpenCode', () => {
  const b = harnessBin('opencode');
  it('loads tiergate from the plugin entry install writes, and uninstall restores opencode.jsonc', () => {
    if (!b.ok) throw new Error(b.reason);
    const sb = home({
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
    });
    const dir = join(sb.home, '.config', 'opencode');
    // Pre-empt OpenCode's start-up npm install of @opencode-ai/plugin (opencode.md §1): node_modules + a lock listing it.
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    put(join(dir, 'package.json'), '{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}');
    put(
      join(dir, 'package-lock.json'),
      '{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}',
    );
    const file = join(dir, 'opencode.jsonc');
    const original = '// mine\n{\n  "autoupdate": false, // keep\n  "share": "disabled",\n}\n';
    put(file, original);
    const project = join(sb.root, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });

    expect(tiergate(sb.env, 'install', 'opencode').out.harnesses![0]!.status).toBe('done');
    // OpenCode says nothing about a plugin it loads (or fails to find), so the proof it ran tiergate's bundle is a
    // diagnostic line the plugin wrote at load (loadDiagnostics), and OpenCode carrying on.
    let r: ReturnType<typeof run> | undefined;
    const lines = loadDiagnostics(sb.env, () => {
      r = run(b.bin, ['debug', 'config', '--print-logs', '--log-level', 'INFO'], sb.env, project, 150_000);
    });
    expect(r!.status, r!.stderr.slice(-2000)).toBe(0);
    const url = pathToFileURL(join(installed, 'dist', 'opencode.js')).href;
    expect(JSON.parse(r!.stdout.slice(r!.stdout.indexOf('{'))).plugin).toContain(url);
    expect(lines.join('\n')).toMatch(/"where":"prices\.refresh\.config".*observer/);
    expect(doctorFor(sb.env, 'opencode').status).toBe('ok');

    expect(tiergate(sb.env, 'uninstall', 'opencode').out.harnesses![0]!.status).toBe('done');
    expect(readFileSync(file, 'utf8')).toBe(original);
  });
});

describe('pi', () => {
  const b = harnessBin('pi');
  it('lists tiergate as a package after install, and uninstall restores settings.json', () => {
    if (!b.ok) throw new Error(b.reason);
    const sb = home({ PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' });
    sb.env.PI_CODING_AGENT_DIR = join(sb.root, 'pi-agent');
    const settings = join(sb.env.PI_CODING_AGENT_DIR, 'settings.json');
    const original = '{\n    "defaultProvider": "fake",\n    "defaultModel": "parent",\n    "packages": []\n}';
    put(settings, original);
    // A provider on a closed loopback port: pi loads its extensions, then fails to reach the model, locally.
    put(
      join(sb.env.PI_CODING_AGENT_DIR, 'models.json'),
      JSON.stringify({
        providers: {
          fake: {
            baseUrl: `${CLOSED}/v1`,
            api: 'openai-completions',
            apiKey: 'dummy',
            models: [
              {
                id: 'parent',
                name: 'parent',
                reasoning: false,
                input: ['text'],
                contextWindow: 1000,
                maxTokens: 100,
                cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
              },
            ],
          },
        },
      }),
    );

    expect(tiergate(sb.env, 'install', 'pi').out.harnesses![0]!.status).toBe('done');
    const r = run(b.bin, ['list'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(installed);
    expect(doctorFor(sb.env, 'pi').status).toBe('ok');
    // pi says nothing about the extensions it loads: a diagnostic line the extension wrote at load is the proof
    // (loadDiagnostics). Not a child's arguments (--no-session with -p and --mode): a child leaves the refresh to its
    // parent and would write nothing.
    const project = join(sb.root, 'project');
    mkdirSync(project, { recursive: true });
    const lines = loadDiagnostics(
      sb.env,
      () => void run(b.bin, ['--mode', 'json', '-p', 'hi'], sb.env, project, 90_000),
    );
    expect(lines.join('\n')).toMatch(/"where":"prices\.refresh\.config".*observer/);

    expect(tiergate(sb.env, 'uninstall', 'pi').out.harnesses![0]!.status).toBe('done');
    expect(readFileSync(settings, 'utf8')).toBe(original);
    expect(run(b.bin, ['list'], sb.env).stdout).not.toContain(installed);
  });
});
