/**
 * The only module that starts processes: the detached price refresh, and the harness CLIs the installer may run.
 * Nothing here is ever awaited on a dispatch path.
 */
import { spawn, spawnSync } from 'node:child_process';

/** Start a process that outlives its parent and is not waited for (SessionStart must return at once). */
export function spawnDetached(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number | null {
  const child = spawn(command, args, { detached: true, stdio: 'ignore', env });
  child.on('error', () => undefined);
  child.unref();
  return child.pid ?? null;
}

export type RunResult = { status: number | null; stdout: string; stderr: string; error: string | null };

/** Run a command to completion with a hard timeout (installer and doctor only). */
export function runBounded(command: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): RunResult {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs, env, maxBuffer: 4 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error ? String(r.error.message) : null };
}
