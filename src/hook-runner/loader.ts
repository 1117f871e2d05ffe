/**
 * dist/hook.cjs: runs the bundle that serves this hook event (bundles.ts) from V8's compiled code when a good copy is
 * cached in `<data dir>/code-cache/` (io/code-cache-file.ts), so a hook process does not parse and compile the bundle
 * again. Through `vm.Script` `cachedData`, on every Node: Node 22+'s `module.enableCompileCache` keeps a module's top
 * level only, and a dispatch's functions compile lazily, so it saved less (bench/README.md, sessions 12 and 13); Node
 * 20 has no compile cache at all. Reads only: the cache is written by dist/code-cache.cjs after the answer is out.
 * Small on purpose: every hook process compiles this file (no code cache for it on Node 20). What it calls on every hook
 * is parenthesised so V8 compiles it with the top level (io/code-cache-file.ts), its paths are joined without node:path
 * (io/paths.ts joinPath), and Node's modules come through process.getBuiltinModule (bundleRequire below; the build
 * gives dist/hook.cjs its own node:fs and node:vm that way, scripts/build.mjs): bench/README.md, session 17.
 */
import { readFileSync, statSync } from 'node:fs';
import { Script } from 'node:vm';
import {
  type CodeCacheRank,
  codeCacheDirProblem,
  codeCacheName,
  FULL_RANK,
  readCodeCache,
} from '../io/code-cache-file.js';
import { errorText } from '../io/error-text.js';
import { CODE_CACHE_DIR, dataDir, type Env, joinPath } from '../io/paths.js';
import { bundleFor, type DispatchEvents } from './bundles.js';
import type { CodeCacheFound } from './code-cache.js';

type Load = (id: string) => unknown;
/**
 * `codeCacheRank`: a dispatch bundle's (hook-runner/core.ts): how much of the dispatch path this run exercised. A bundle
 * without it (the events bundle) makes a full cache on any run. `warmCodeCache`: runs, before a cache is made, what
 * this run may not have (never throws).
 */
type Bundle = {
  main(argv: string[]): Promise<number>;
  codeCacheRank?: () => CodeCacheRank;
  warmCodeCache?: () => unknown;
};
/**
 * `cache`: what the loader found, when there is a cache to write or a problem with it to report after the answer;
 * `rank`: that of a good file in use (written again only by a fuller run).
 */
type Loaded = { exports: Bundle; script?: Script; cache?: Omit<CodeCacheFound, 'rank'> & { rank?: CodeCacheRank } };

/**
 * process.exit less its own JavaScript when nothing listens for `exit`: process.exit ends in process.reallyExit(code)
 * (lib/internal/process/per_thread.js on Node 20, 22 and 24) after taking Node's own listener off, setting `exitCode`
 * through its validator and emitting `exit`, and that JavaScript (exit itself, removeListener) is compiled at this one
 * call: ~0.44 M instructions a hook on Node 20 (bench/README.md, session 17). With a listener, or on a Node without
 * reallyExit (undocumented, though process.exit calls it as any caller would), process.exit.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const exitProcess = (function exitProcess(code: number): never {
  const really = (process as { reallyExit?: (code: number) => never }).reallyExit;
  if (typeof really === 'function' && process.listenerCount('exit') === 0) return really.call(process, code);
  return process.exit(code);
});

/**
 * Runs the hook and exits 0 (or the answer's code) through `exit` (dist/hook.cjs: exitProcess). A bundle that cannot
 * load leaves a line on stderr.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const startHook = (async function startHook(
  distDir: string,
  argv: string[],
  load: Load,
  events: DispatchEvents,
  env: Env = process.env,
  exit: (code: number) => never = (code) => process.exit(code),
): Promise<never> {
  let code = 0;
  try {
    const bundle = bundleFor(events, argv[0] ?? '', argv[1] ?? '');
    const loaded = loadBundle(distDir, bundle, load, env);
    code = await loaded.exports.main(argv);
    // The answer is out: only now, and only with no good cache (the first hook of a build or of a Node), is one made.
    // A cache made by a lesser run lacks the functions a fuller one compiled (a hook for another tool: the dispatch
    // path; a dispatch let through: the correction's): the first fuller run replaces it, so at most three writes a build.
    const { script, cache } = loaded;
    const rank = loaded.exports.codeCacheRank?.() ?? FULL_RANK;
    if (script && cache && (cache.rank === undefined || cache.rank < rank)) {
      // The paths of the dispatch this run did not take, run on made-up data so they are in the cache too
      // (observer/spend-warm.ts: the budget path's read).
      loaded.exports.warmCodeCache?.();
      keepCodeCache(distDir, load, env, script, { ...cache, rank });
    }
  } catch (err) {
    process.stderr.write(`tiergate: hook could not run (${errorText(err)}); the harness proceeds unchanged\n`);
    code = 0;
  }
  return exit(code);
});

// Node's CommonJS wrapper (`Module.wrap`), without loading node:module for it.
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const wrap = (function wrap(source: string) { return `(function (exports, require, module, __filename, __dirname) { ${source}\n});`; });

/**
 * The bundle's `require`: Node's modules through process.getBuiltinModule (Node 20.16+), which hands over the module
 * Node loaded already, where a first `require('node:fs')` goes through the public loader (Module._load, the module's
 * ESM facade made, its exports synced) for each module: ~0.4 M instructions a hook on Node 20 (bench/README.md, session
 * 17). Anything else, and every module on an older Node, through `load`.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const bundleRequire = (function bundleRequire(load: Load): Load {
  const builtin = process.getBuiltinModule;
  if (typeof builtin !== 'function') return load;
  return (function require(id: string): unknown { return (id.startsWith('node:') && builtin(id)) || load(id); });
});

/**
 * `load` is dist/hook.cjs's own require: the bundles sit beside it and require only Node's modules, each other
 * (dist/policy-load.cjs) and packages of the same node_modules (better-sqlite3, jsonc-parser), so it resolves for them
 * what their own would. What they require is compiled by Node as before: only the bundle is in the code cache.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const loadBundle = (function loadBundle(distDir: string, bundle: string, load: Load, env: Env): Loaded {
  // The bundle's own directory is distDir (its __dirname): no dirName for dist/hook.cjs to compile.
  const file = joinPath(distDir, `${bundle}.cjs`);
  try {
    const dir = joinPath(dataDir(env), CODE_CACHE_DIR);
    const path = joinPath(dir, codeCacheName(bundle, statSync(file), env));
    const dirProblem = codeCacheDirProblem(dir);
    const read = dirProblem ? {} : readCodeCache(path);
    const script = new Script(wrap(readFileSync(file, 'utf8')), { filename: file, cachedData: read.data });
    const problem = script.cachedDataRejected ? 'rejected by V8' : read.problem;
    // `require` as Node's modules have it (hook-runner/lazy-os.ts falls back on it where process.getBuiltinModule is missing).
    const require = bundleRequire(load);
    const mod = { exports: {} as Bundle, require };
    (script.runInThisContext() as (...args: unknown[]) => void).call(
      mod.exports,
      mod.exports,
      require,
      mod,
      file,
      distDir,
    );
    if (read.data && !problem)
      return {
        exports: mod.exports,
        script,
        ...(read.rank < FULL_RANK ? { cache: { dir, path, rank: read.rank } } : {}),
      };
    return { exports: mod.exports, script, cache: { dir, path, dirProblem, problem } };
  } catch {
    // Node's own loader: it reports a broken or missing bundle the usual way.
    return { exports: load(file) as Bundle };
  }
});

/** A failure here costs the cache, never the hook (the answer is out already). */
function keepCodeCache(distDir: string, load: Load, env: Env, script: Script, found: CodeCacheFound): void {
  try {
    const writer = load(joinPath(distDir, 'code-cache.cjs')) as typeof import('./code-cache.js');
    writer.saveCodeCache(env, found, () => script.createCachedData());
  } catch (err) {
    process.stderr.write(`tiergate: hook code cache not saved (${errorText(err)})\n`);
  }
}
