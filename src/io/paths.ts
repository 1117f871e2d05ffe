/** Where tiergate keeps its files. Pure functions of the environment passed in; no I/O. */
import { homedir } from 'node:os';
import { withoutTrailingSlashes } from './text.js';

/*
 * POSIX path strings (tiergate runs on Linux and macOS only), equal to node:path's join, dirname and basename for every
 * string (test/unit/io/paths.test.ts checks them against node:path.posix). Ours because a dispatch hook pays for each of
 * Node's own functions at its first call (V8 compiles Node's JS lazily: path.join is ~0.5 M instructions the first time,
 * and its normalisation walks the path a character at a time in the interpreter), where this bundle's code comes from
 * its code cache (bench/README.md, session 17).
 */

/** path.join: the non-empty parts joined by `/`, normalised (`.`, `..` and repeated slashes resolved); '.' for none. */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const joinPath = (function joinPath(...parts: string[]): string {
  let joined = '';
  for (const part of parts) if (part.length > 0) joined = joined.length > 0 ? `${joined}/${part}` : part;
  return normalisePath(joined);
});

/** A repeated slash, or a `.` or `..` component. */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const needsNormalising = (function needsNormalising(p: string): boolean {
  if (p.includes('//')) return true;
  for (let i = p.indexOf('.'); i >= 0; i = p.indexOf('.', i + 1)) {
    if (i > 0 && p.charCodeAt(i - 1) !== 47) continue;
    const end = p.charCodeAt(i + 1) === 46 ? i + 2 : i + 1;
    if (end === p.length || p.charCodeAt(end) === 47) return true;
  }
  return false;
});

/** path.normalize (POSIX). Most paths have nothing to resolve: one scan finds that, and the path is returned as is. */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
const normalisePath = (function normalisePath(p: string): string {
  if (p.length === 0) return '.';
  return needsNormalising(p) ? resolveSegments(p) : p;
});

/**
 * `p` with its `.` and `..` components and repeated slashes resolved. Not parenthesised: hardly any path on a hook's
 * way has one, so V8 only pre-parses this in dist/hook.cjs, which every hook process compiles from source (~0.4-0.5 M
 * instructions a KB there on Node 20: bench/README.md, "Session 18").
 */
function resolveSegments(p: string): string {
  const absolute = p.charCodeAt(0) === 47;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
    } else out.push(seg);
  }
  const trailing = p.charCodeAt(p.length - 1) === 47;
  const body = out.join('/');
  if (body === '') return absolute ? '/' : trailing ? './' : '.';
  return `${absolute ? '/' : ''}${body}${trailing ? '/' : ''}`;
}

/** path.dirname (POSIX): the path less its last component and the slashes before it. */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const dirName = (function dirName(p: string): string {
  if (p.length === 0) return '.';
  const rooted = p.charCodeAt(0) === 47;
  let end = p.length;
  while (end > 1 && p.charCodeAt(end - 1) === 47) end--;
  const slash = p.lastIndexOf('/', end - 1);
  if (slash < 1) return rooted ? '/' : '.';
  if (rooted && slash === 1) return '//';
  return p.slice(0, slash);
});

/** path.basename (POSIX, no suffix): the last component, without trailing slashes. */
export function baseName(p: string): string {
  const t = withoutTrailingSlashes(p);
  return t.slice(t.lastIndexOf('/') + 1);
}

export type Env = Record<string, string | undefined>;

export function configDir(env: Env = process.env): string {
  if (env.TIERGATE_HOME) return joinPath(env.TIERGATE_HOME, 'config');
  return joinPath(env.XDG_CONFIG_HOME || joinPath(env.HOME || homedir(), '.config'), 'tiergate');
}

/**
 * Data dir (ledger, spools, logs, price cache): TIERGATE_HOME, else the XDG data dir. Deliberately NOT the harness's
 * plugin data dir (CLAUDE_PLUGIN_DATA / PLUGIN_DATA, which Codex 0.169.0 also sets): one ledger per user is what lets
 * `tiergate report` in a terminal see every harness's subagents; per-plugin ledgers would each be invisible to it.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const dataDir = (function dataDir(env: Env = process.env): string {
  if (env.TIERGATE_HOME) return joinPath(env.TIERGATE_HOME, 'data');
  return joinPath(env.XDG_DATA_HOME || joinPath(env.HOME || homedir(), '.local', 'share'), 'tiergate');
});

/** The command hooks' V8 code cache (io/code-cache-file.ts; read by hook-runner/loader.ts). */
export const CODE_CACHE_DIR = 'code-cache';

export type Paths = {
  config: string;
  data: string;
  ledger: string;
  spoolDir: string;
  diagnostics: string;
  priceCacheDir: string;
  refreshStatus: string;
  refreshLock: string;
  codeCacheDir: string;
};

// A hook asks for its paths several times (diagnostics, spool, prices): joined once per distinct environment.
let last: { key: string; paths: Paths } | null = null;

export const paths = (env: Env = process.env): Paths => {
  const key = `${env.TIERGATE_HOME}\u0000${env.XDG_CONFIG_HOME}\u0000${env.XDG_DATA_HOME}\u0000${env.HOME}`;
  if (last?.key === key) return last.paths;
  const data = dataDir(env);
  const p: Paths = {
    config: joinPath(configDir(env), 'config.json'),
    data,
    ledger: joinPath(data, 'ledger.sqlite'),
    spoolDir: joinPath(data, 'spool'),
    diagnostics: joinPath(data, 'diagnostics.log'),
    priceCacheDir: joinPath(data, 'prices'),
    refreshStatus: joinPath(data, 'prices', 'status.json'),
    refreshLock: joinPath(data, 'prices', 'refresh.lock'),
    codeCacheDir: joinPath(data, CODE_CACHE_DIR),
  };
  last = { key, paths: Object.freeze(p) };
  return p;
};
