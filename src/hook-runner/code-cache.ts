/**
 * dist/code-cache.cjs: turns on Node's compile cache (22.1+) in `<data dir>/code-cache` for the bundle dist/hook.cjs
 * loads next. Its own file, required only where Node has the cache, so older Node never compiles it.
 */
import { statSync } from 'node:fs';
import { diagnose, errorText, setDiagnosticFallback } from '../io/diagnostics.js';
import { ensurePrivateDir } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';

/** The part of node:module used here; `enableCompileCache` is absent before Node 22.1. */
export type CompileCacheApi = {
  enableCompileCache?: (dir: string) => { status: number; message?: string };
  constants?: { compileCacheStatus?: { FAILED: number } };
};

/** On when `<data dir>/code-cache` is a private directory of ours; a link or another's is refused with one line. */
export function enableCodeCache(env: Env, api: CompileCacheApi, uid = process.getuid?.()): boolean {
  if (typeof api.enableCompileCache !== 'function') return false;
  const dir = paths(env).codeCacheDir;
  // A refusal the log cannot take (the data dir is not writable) goes to the hook's stderr: never silent.
  setDiagnosticFallback((line) => void process.stderr.write(line));
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
