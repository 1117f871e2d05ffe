/**
 * Test-only fault injection for the in-process adapters, so real-binary e2e runs can prove the fail-open wrappers:
 * TIERGATE_FAULT=<where>:throw|hang[,…] (where = load | dispatch | completion). Unset in normal use; see docs/*.md.
 */
import type { Env } from '../../io/paths.js';

export async function injectFault(env: Env, where: 'load' | 'dispatch' | 'completion'): Promise<void> {
  const spec = env.TIERGATE_FAULT;
  if (!spec) return;
  for (const item of spec.split(',')) {
    const [at, kind] = item.trim().split(':');
    if (at !== where) continue;
    if (kind === 'throw') throw new Error(`injected fault at ${where}`);
    if (kind === 'hang') await new Promise(() => undefined);
  }
}
