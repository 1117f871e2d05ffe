/**
 * The command-hook runner with every harness's full adapter: what tests, the demo and benches drive in-process.
 * The real hook process picks a leaner table per event (hook-runner/bundles.ts).
 */
import type { Env } from '../io/paths.js';
import { COMMAND_ADAPTERS } from './adapters.js';
import { runHookWith, type RunOutcome, type StdinSource } from './core.js';

export { DEFAULT_DEADLINE_MS } from './core.js';
export type { RunOutcome, StdinSource } from './core.js';

export function runHook(harness: string, event: string, stdin: StdinSource, env: Env): Promise<RunOutcome> {
  return runHookWith(COMMAND_ADAPTERS, harness, event, stdin, env);
}
