/**
 * dist/code-cache.cjs: writes the V8 code cache dist/hook.cjs reads (io/code-cache-file.ts), and says why a cache could
 * not be used. Its own file, required by dist/hook.cjs only after the hook's answer is out and only when there is
 * something to write or say (no cache yet, or one that could not be used), so a hook with a good cache never compiles
 * it.
 */
import { type CodeCacheRank, codeCacheDirProblem, encodeCodeCache } from '../io/code-cache-file.js';
import { diagnose, errorText, setDiagnosticFallback } from '../io/diagnostics.js';
import { ensurePrivateDir, writeFileAtomic } from '../io/files.js';
import type { Env } from '../io/paths.js';

/** What dist/hook.cjs found (loader.ts). */
export type CodeCacheFound = {
  dir: string;
  path: string;
  /** Why the directory is not used (a link, not a directory, another user's): nothing is written in it. */
  dirProblem?: string | null;
  /** Why the file could not be used (damaged, unreadable, a link, a FIFO, rejected by V8): it is replaced. */
  problem?: string | undefined;
  /** What the run that makes the data exercised (io/code-cache-file.ts CodeCacheRank), kept in the file's header. */
  rank: CodeCacheRank;
};

/**
 * Writes `make()` (V8's data for the bundle, taken after it ran so the functions it compiled lazily are in it) under
 * `found.path`, user-only, atomically, never through a link. Never throws: at most one `hook:code-cache` line.
 */
export function saveCodeCache(
  env: Env,
  found: CodeCacheFound,
  make: () => Uint8Array,
  uid = process.getuid?.(),
): boolean {
  // A line the log cannot take (the data dir is not writable) goes to the hook's stderr: never silent.
  setDiagnosticFallback((line) => void process.stderr.write(line));
  const { dir, path, problem } = found;
  if (found.dirProblem) {
    diagnose('warn', 'hook:code-cache', `not used: ${found.dirProblem}`, { dir }, env);
    return false;
  }
  try {
    ensurePrivateDir(dir);
    // Created just now, or there already: a link put in its place since the hook looked is refused here too.
    const refused = codeCacheDirProblem(dir, uid);
    if (refused) throw new Error(refused);
    // Not durable: a file lost or zeroed by a crash fails the format's check and is written again.
    writeFileAtomic(path, encodeCodeCache(make(), found.rank), { durable: false });
    if (problem) diagnose('warn', 'hook:code-cache', `${problem}: replaced`, { path }, env);
    return true;
  } catch (err) {
    const why = problem ? `${problem}; ` : '';
    diagnose('warn', 'hook:code-cache', `${why}not saved: ${errorText(err)}`, { path }, env);
    return false;
  }
}
