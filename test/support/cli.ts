/** Runs a CLI command in-process with its stdout and stderr captured, for unit tests of `tiergate <command>`. */
import { vi } from 'vitest';

export type CommandResult = { code: number; out: string; err: string };

/**
 * Calls run(argv) with env laid over process.env (and process.cwd() reporting cwd, when given), collecting what it writes
 * to stdout and stderr; process.env, the streams and cwd are restored afterwards, whether it returns or throws.
 */
export async function runCaptured(
  run: (argv: string[]) => Promise<number>,
  argv: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<CommandResult> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => (out.push(String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => (err.push(String(c)), true));
  const d = cwd === undefined ? null : vi.spyOn(process, 'cwd').mockReturnValue(cwd);
  try {
    return { code: await run(argv), out: out.join(''), err: err.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
    d?.mockRestore();
    for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
    Object.assign(process.env, saved);
  }
}
