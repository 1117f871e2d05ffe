/** What every harness sandbox of the e2e suites shares: tiergate's own env and config, and running the harness binary. */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** This checkout (the shipped manifests, dist/, data/). */
export const REPO = join(import.meta.dirname, '../../..');

/** tiergate's variables in a sandbox: its own home, and no background price refresh (tests stay on loopback). */
export function tiergateEnv(tiergateHome: string): NodeJS.ProcessEnv {
  return { TIERGATE_HOME: tiergateHome, TIERGATE_PRICE_REFRESH: 'off' };
}

/** The few variables of the test's own environment a harness binary needs (locale, terminal, temp dir, PATH). */
export function hostEnv(names: readonly string[] = ['PATH', 'LANG', 'TERM', 'TMPDIR']): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of names) if (process.env[k] !== undefined && process.env[k] !== '') env[k] = process.env[k];
  return env;
}

/** The user policy file of a sandbox's tiergate home ($TIERGATE_HOME/config/config.json); nothing when config is undefined. */
export function writeTiergateConfig(tiergateHome: string, config: unknown): void {
  if (config === undefined) return;
  mkdirSync(join(tiergateHome, 'config'), { recursive: true });
  writeFileSync(join(tiergateHome, 'config', 'config.json'), JSON.stringify(config));
}

/** Port 9 (discard) is closed on loopback here: a proxied connection fails at once and stays on the machine. */
export const CLOSED = 'http://127.0.0.1:9';

/** Every proxy variable on the closed loopback port, loopback itself exempt: whatever a harness dials besides the fake API fails locally. */
export function closedProxyEnv(): Record<string, string> {
  return {
    HTTPS_PROXY: CLOSED,
    HTTP_PROXY: CLOSED,
    ALL_PROXY: CLOSED,
    https_proxy: CLOSED,
    http_proxy: CLOSED,
    all_proxy: CLOSED,
    NO_PROXY: '127.0.0.1,localhost,::1',
    no_proxy: '127.0.0.1,localhost,::1',
  };
}

/** The base of a harness sandbox's environment: the host's few variables (hostEnv), tiergate's own, proxies closed. */
export function offlineEnv(tiergateHome: string, hostNames?: readonly string[]): NodeJS.ProcessEnv {
  return { ...hostEnv(hostNames), ...tiergateEnv(tiergateHome), ...closedProxyEnv() };
}

/** A throwaway root with home/, home/<configDir> (the harness's own), project/ and tiergate/ (TIERGATE_HOME). */
export type HomeSandbox = {
  root: string;
  home: string;
  configDir: string;
  project: string;
  tiergateHome: string;
  cleanup(): void;
};

/** Removes a sandbox, with retries: a harness child that outlives its run (a TUI after SIGHUP, a background helper) may
 * still be writing in it for a moment, and rmdir then fails with ENOTEMPTY (seen in CI: Copilot 1.0.102's TUI). */
export const removeTree = (root: string): void =>
  rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });

/** Makes a HomeSandbox and writes tiergateConfig as the user policy (writeTiergateConfig: nothing when undefined). */
export function makeHomeSandbox(prefix: string, configDir: string, tiergateConfig?: unknown): HomeSandbox {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const dir = join(home, configDir);
  const project = join(root, 'project');
  const tiergateHome = join(root, 'tiergate');
  for (const d of [dir, project, tiergateHome]) mkdirSync(d, { recursive: true });
  writeTiergateConfig(tiergateHome, tiergateConfig);
  return {
    root,
    home,
    configDir: dir,
    project,
    tiergateHome,
    cleanup: () => removeTree(root),
  };
}

/** A HomeSandbox whose harness folder goes by the name its run helpers use (codexHome, copilotHome, grokHome). */
export type HarnessHome<K extends string> = Omit<HomeSandbox, 'configDir'> & Record<K, string>;

export function makeHarnessHome<K extends string>(
  prefix: string,
  configDir: string,
  key: K,
  tiergateConfig?: unknown,
): HarnessHome<K> {
  const { configDir: dir, ...rest } = makeHomeSandbox(prefix, configDir, tiergateConfig);
  return { ...rest, [key]: dir } as HarnessHome<K>;
}

export type ProcessRun = { code: number | null; stdout: string; stderr: string; ms: number };

/** Runs bin to its end with no stdin, collecting stdout and stderr; SIGKILL after timeoutMs. Never rejects. */
/** A harness run headless in its sandbox's project folder (Copilot CLI's, Grok Build's): runProcess with its cwd. */
export function runInProject(
  bin: string,
  args: string[],
  h: { project: string },
  env: NodeJS.ProcessEnv,
  timeoutMs = 90_000,
): Promise<ProcessRun> {
  return runProcess(bin, args, { cwd: h.project, env, timeoutMs });
}

export function runProcess(
  bin: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ProcessRun> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}
