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
export function runBounded(
  command: string,
  args: string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): RunResult {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs, env, maxBuffer: 4 * 1024 * 1024 });
  return {
    status: r.status,
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
    error: r.error ? String(r.error.message) : null,
  };
}

export type CollectResult = {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  error: string | null;
};

/**
 * Run a command without blocking the event loop and collect its output, bounded in time and bytes (pi's own subagent
 * tool runs each child `pi` this way). An abort signal or the timeout kills the child.
 */
export function runCollect(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number; maxBytes: number; signal?: AbortSignal },
): Promise<CollectResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let truncated = false;
    let timedOut = false;
    let settled = false;
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const kill = () => {
      try {
        child.kill('SIGTERM');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    const onAbort = () => kill();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const take = (which: 'out' | 'err') => (d: Buffer) => {
      const room = opts.maxBytes - stdout.length - stderr.length;
      if (room <= 0) {
        truncated = true;
        return;
      }
      const s = d.toString('utf8').slice(0, room);
      if (s.length < d.length) truncated = true;
      if (which === 'out') stdout += s;
      else stderr += s;
    };
    child.stdout.on('data', take('out'));
    child.stderr.on('data', take('err'));
    const finish = (code: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ code, stdout, stderr, timedOut, truncated, error });
    };
    child.on('error', (err) => finish(null, err.message));
    child.on('close', (code) => finish(code, null));
  });
}
