/** What every harness sandbox of the e2e suites shares: tiergate's own env and config, and running the harness binary. */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

export type ProcessRun = { code: number | null; stdout: string; stderr: string; ms: number };

/** Runs bin to its end with no stdin, collecting stdout and stderr; SIGKILL after timeoutMs. Never rejects. */
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
