/**
 * dist/hook.cjs: turns on Node's compile cache (22.1+; nothing on older Node) in the data dir, then requires the bundle
 * that serves this hook event (bundles.ts). Node keys, checksums and rewrites the cached code itself.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { diagnose, errorText, setDiagnosticFallback } from '../io/diagnostics.js';
import { ensurePrivateDir } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';
import { bundleFor, type DispatchEvents } from './bundles.js';

/** What each hook bundle exports (src/entries/hook-dispatch-<harness>.ts, hook-events.ts). */
export type HookBundleExports = { main(argv: string[]): Promise<number> };

/** The part of node:module this needs; `enableCompileCache` is absent before Node 22.1. */
export type CompileCacheApi = {
  enableCompileCache?: (dir: string) => { status: number; message?: string };
  constants?: { compileCacheStatus?: { FAILED: number } };
};

/**
 * Node's compile cache in `<data dir>/code-cache`, a private directory of ours: one that is a link or not ours is
 * refused (one diagnostic line) and the hook compiles from source. Returns whether the cache is on.
 */
export function enableCodeCache(env: Env, api: CompileCacheApi, uid = process.getuid?.()): boolean {
  if (typeof api.enableCompileCache !== 'function') return false;
  const dir = paths(env).codeCacheDir;
  try {
    ensurePrivateDir(dir);
    if (uid !== undefined && statSync(dir).uid !== uid) throw new Error(`${dir} belongs to another user`);
    const result = api.enableCompileCache(dir);
    if (result.status !== api.constants?.compileCacheStatus?.FAILED) return true;
    diagnose('warn', 'hook:code-cache', `not used: ${result.message ?? 'Node could not enable it'}`, { dir }, env);
  } catch (err) {
    diagnose('warn', 'hook:code-cache', `not used: ${errorText(err)}`, { dir }, env);
  }
  return false;
}

/** Runs the hook and exits. Never throws: a bundle that cannot load leaves a line on stderr and the harness proceeds. */
export async function startHook(
  distDir: string,
  argv: string[],
  env: Env,
  load: NodeJS.Require,
  events: DispatchEvents,
): Promise<never> {
  const bundle = bundleFor(events, argv[0] ?? '', argv[1] ?? '');
  let code = 0;
  try {
    // A diagnosis the log cannot take goes to stderr: never silent.
    setDiagnosticFallback((line) => void process.stderr.write(line));
    enableCodeCache(env, load('node:module') as CompileCacheApi);
    const exports = load(join(distDir, `${bundle}.cjs`)) as HookBundleExports;
    code = await exports.main(argv);
  } catch (err) {
    process.stderr.write(
      `tiergate: hook could not run (${err instanceof Error ? err.message : String(err)}); the harness proceeds unchanged\n`,
    );
    code = 0;
  }
  process.exit(code);
}
