/**
 * The one background trigger: what the price refresh (refresh/trigger.ts, at session start) and the team push
 * (team/trigger.ts, at session end) both start. A hook's wall time must not depend on the network, so a trigger takes
 * the job's lock here (ten sessions starting or ending together start one process, not ten), hands it by nonce to a
 * detached `node dist/<script>` and returns at once. Never throws: a failure is one diagnostic line.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import { spawnDetached } from '../io/processes.js';
import { acquireLock, releaseLock } from './lock.js';

export type BackgroundResult =
  | { started: true; pid: number }
  | { started: false; reason: 'running' | 'spawn-failed' | 'error'; detail: string };

export type BackgroundJob = {
  /** The diagnostic's place (`prices.refresh.trigger`, `team.push.trigger`). */
  where: string;
  /** What it is called in a diagnostic: "could not start the <what> process". */
  what: string;
  /** The bundle to run, a file next to the running bundle in dist/ (`refresh.js`, `cli.js`). */
  script: string;
  /** A script path given outright (tests); the bundle's own file otherwise. */
  scriptPath?: string;
  args?: readonly string[];
  lockPath: string;
  /** The environment variable that hands the lock's nonce to the child. */
  lockEnv: string;
  /** More for the child's environment (never a secret: it is the child's own policy it reads). */
  childEnv?: Record<string, string>;
  now: number;
};

export function startBackground(env: Env, job: BackgroundJob): BackgroundResult {
  try {
    const script = job.scriptPath ?? scriptBeside(job.script);
    if (!script || !existsSync(script)) {
      diagnose('error', job.where, `${job.script} not found next to the bundle`, {}, env);
      return { started: false, reason: 'spawn-failed', detail: `${job.script} not found` };
    }
    const nonce = acquireLock(job.lockPath, process.pid, job.now);
    if (!nonce) return { started: false, reason: 'running', detail: `another ${job.what} holds the lock` };
    const pid = spawnDetached(nodeBinary(), [script, ...(job.args ?? [])], {
      ...env,
      ...job.childEnv,
      [job.lockEnv]: nonce,
    } as NodeJS.ProcessEnv);
    if (pid === null) {
      releaseLock(job.lockPath, nonce);
      diagnose('error', job.where, `could not start the ${job.what} process`, { script }, env);
      return { started: false, reason: 'spawn-failed', detail: 'spawn returned no pid' };
    }
    return { started: true, pid };
  } catch (err) {
    diagnose('error', job.where, errorText(err), {}, env);
    return { started: false, reason: 'error', detail: errorText(err) };
  }
}

/** Bundled, this module lives in dist/<entry> beside the other bundles; from source (tests), look in dist/. */
function scriptBeside(name: string): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, name), join(here, '..', '..', 'dist', name)];
  return candidates.find((p) => existsSync(p)) ?? null;
}

/**
 * The node to run a bundle with: this one when we run in Node (command hooks, pi); `node` from PATH inside Bun or a
 * compiled host binary (OpenCode loads plugins in Bun, whose execPath is not a Node that runs our bundle).
 */
export function nodeBinary(
  execPath = process.execPath,
  versions: Record<string, string | undefined> = process.versions,
): string {
  const isNode = versions.bun === undefined && /(^|[\\/])node(\.exe)?$/i.test(execPath);
  return isNode ? execPath : 'node';
}
