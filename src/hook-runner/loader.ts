/**
 * dist/hook.cjs: requires the bundle that serves this hook event (bundles.ts) and runs it; where Node has a compile
 * cache (22.1+) dist/code-cache.cjs turns it on first. Small on purpose: every hook process compiles this file.
 */
import { join } from 'node:path';
import { errorText } from '../io/error-text.js';
import { bundleFor, type DispatchEvents } from './bundles.js';
import type { CompileCacheApi } from './code-cache.js';

type Load = (id: string) => unknown;

/** Runs the hook and exits 0 (or the answer's code). A bundle that cannot load leaves a line on stderr. */
export async function startHook(distDir: string, argv: string[], load: Load, events: DispatchEvents): Promise<never> {
  let code = 0;
  try {
    startCodeCache(distDir, load);
    const bundle = join(distDir, `${bundleFor(events, argv[0] ?? '', argv[1] ?? '')}.cjs`);
    code = await (load(bundle) as { main(argv: string[]): Promise<number> }).main(argv);
  } catch (err) {
    process.stderr.write(`tiergate: hook could not run (${errorText(err)}); the harness proceeds unchanged\n`);
    code = 0;
  }
  process.exit(code);
}

/** Node 22.1+ only (older Node never loads dist/code-cache.cjs). A failure here costs the cache, never the hook. */
function startCodeCache(distDir: string, load: Load): void {
  try {
    const api = load('node:module') as CompileCacheApi;
    if (typeof api.enableCompileCache !== 'function') return;
    (load(join(distDir, 'code-cache.cjs')) as typeof import('./code-cache.js')).enableCodeCache(process.env, api);
  } catch (err) {
    process.stderr.write(`tiergate: hook compile cache not used (${errorText(err)})\n`);
  }
}
