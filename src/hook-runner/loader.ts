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

/** The part of node:module used here; `enableCompileCache` is absent before Node 22.1. */
export type CompileCacheApi = {
  enableCompileCache?: (dir: string) => { status: number; message?: string };
  constants?: { compileCacheStatus?: { FAILED: number } };
};

/** On when `<data dir>/code-cache` is a private directory of ours; a link or another's is refused with one line. */
export function enableCodeCache(env: Env, api: CompileCacheApi, uid = process.getuid?.()): boolean {
  if (typeof api.enableCompileCache !== 'function') return false;
  const dir = paths(env).codeCacheDir;
  try {
    ensurePrivateDir(dir);
    if (uid !== undefined && statSync(dir).uid !== uid) throw new Error(`${dir} belongs to another user`);
    const result = api.enableCompileCache(dir);
    if (result.status !== api.constants?.compileCacheStatus?.FAILED) return true;
    throw new Error(result.message ?? 'Node could not enable it');
  } catch (err) {
    diagnose('warn', 'hook:code-cache', `not used: ${errorText(err)}`, { dir }, env);
    return false;
  }
}

/** Runs the hook and exits 0 (or the answer's code). A bundle that cannot load leaves a line on stderr. */
export async function startHook(
  distDir: string,
  argv: string[],
  env: Env,
  load: NodeJS.Require,
  events: DispatchEvents,
): Promise<never> {
  let code = 0;
  try {
    setDiagnosticFallback((line) => void process.stderr.write(line));
    enableCodeCache(env, load('node:module') as CompileCacheApi);
    const bundle = join(distDir, `${bundleFor(events, argv[0] ?? '', argv[1] ?? '')}.cjs`);
    code = await (load(bundle) as { main(argv: string[]): Promise<number> }).main(argv);
  } catch (err) {
    process.stderr.write(`tiergate: hook could not run (${errorText(err)}); the harness proceeds unchanged\n`);
    code = 0;
  }
  process.exit(code);
}
