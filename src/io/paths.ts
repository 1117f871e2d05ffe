/** Where tiergate keeps its files. Pure functions of the environment passed in; no I/O. */
import { homedir } from 'node:os';
import { join, sep } from 'node:path';

export type Env = Record<string, string | undefined>;

/**
 * `join(dir, name)` for a `dir` that join, resolve or dirname produced (so already normalised) and a plain `name` (no
 * separator, not `.` or `..`). join normalises the whole string again in JavaScript, ~0.02 ms a call in a fresh
 * process, and a hook builds a dozen paths (bench/README.md, "Session 4"). Equal to join for such inputs (tested).
 */
export function childPath(dir: string, name: string): string {
  if (dir === '.' || dir === `.${sep}`) return name;
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/**
 * `join(dir, ...names)` for a `dir` from the environment (HOME, XDG_*, TIERGATE_HOME) and plain names. Such a dir is
 * almost always an absolute path with no `.`, `..` or doubled separator, for which join would only copy it: then the
 * names are appended as childPath does, and node:path's normaliser is never compiled in a hook process (~0.03 ms);
 * anything else (relative, `..`, `//`, Windows) goes through join. Equal to join for every input (tested).
 */
export function joinUnder(dir: string, ...names: string[]): string {
  if (
    sep !== '/' ||
    !dir.startsWith('/') ||
    dir.includes('//') ||
    dir.includes('/./') ||
    dir.includes('/../') ||
    dir.endsWith('/.') ||
    dir.endsWith('/..')
  ) {
    return join(dir, ...names);
  }
  let out = dir;
  for (const n of names) out = childPath(out, n);
  return out;
}

export function configDir(env: Env = process.env): string {
  if (env.TIERGATE_HOME) return joinUnder(env.TIERGATE_HOME, 'config');
  return joinUnder(env.XDG_CONFIG_HOME || joinUnder(env.HOME || homedir(), '.config'), 'tiergate');
}

/**
 * Data dir (ledger, spools, logs, price cache): TIERGATE_HOME, else the XDG data dir. Deliberately NOT the harness's
 * plugin data dir (CLAUDE_PLUGIN_DATA / PLUGIN_DATA, which Codex 0.169.0 also sets): one ledger per user is what lets
 * `tiergate report` in a terminal see every harness's subagents; per-plugin ledgers would each be invisible to it.
 */
export function dataDir(env: Env = process.env): string {
  if (env.TIERGATE_HOME) return joinUnder(env.TIERGATE_HOME, 'data');
  return joinUnder(env.XDG_DATA_HOME || joinUnder(env.HOME || homedir(), '.local', 'share'), 'tiergate');
}

/** The hook loader's compiled-code files (hook-runner/loader.ts): named here for every place that looks after them. */
export const CODE_CACHE_DIR = 'code-cache';
/** The dispatch memo's files (runtime/dispatch-memo.ts). */
export const MEMO_DIR = 'dispatch-memo';

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
  memoDir: string;
};

// A hook asks for its paths several times (diagnostics, spool, prices): joined once per distinct environment.
let last: { key: string; paths: Paths } | null = null;

export const paths = (env: Env = process.env): Paths => {
  const key = `${env.TIERGATE_HOME}\u0000${env.XDG_CONFIG_HOME}\u0000${env.XDG_DATA_HOME}\u0000${env.HOME}`;
  if (last?.key === key) return last.paths;
  const data = dataDir(env);
  const p: Paths = {
    config: childPath(configDir(env), 'config.json'),
    data,
    ledger: childPath(data, 'ledger.sqlite'),
    spoolDir: childPath(data, 'spool'),
    diagnostics: childPath(data, 'diagnostics.log'),
    priceCacheDir: childPath(data, 'prices'),
    refreshStatus: childPath(childPath(data, 'prices'), 'status.json'),
    refreshLock: childPath(childPath(data, 'prices'), 'refresh.lock'),
    codeCacheDir: childPath(data, CODE_CACHE_DIR),
    memoDir: childPath(data, MEMO_DIR),
  };
  last = { key, paths: Object.freeze(p) };
  return p;
};
