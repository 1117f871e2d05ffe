/** Where tiergate keeps its files. Pure functions of the environment passed in; no I/O. */
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Env = Record<string, string | undefined>;

export function configDir(env: Env = process.env): string {
  if (env.TIERGATE_HOME) return join(env.TIERGATE_HOME, 'config');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'tiergate');
}

/**
 * Data dir (ledger, spools, logs, price cache): TIERGATE_HOME, else the XDG data dir. Deliberately NOT the harness's
 * plugin data dir (CLAUDE_PLUGIN_DATA / PLUGIN_DATA, which Codex 0.169.0 also sets): one ledger per user is what lets
 * `tiergate report` in a terminal see every harness's subagents; per-plugin ledgers would each be invisible to it.
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const dataDir = (function dataDir(env: Env = process.env): string {
  if (env.TIERGATE_HOME) return join(env.TIERGATE_HOME, 'data');
  return join(env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'), 'tiergate');
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
    config: join(configDir(env), 'config.json'),
    data,
    ledger: join(data, 'ledger.sqlite'),
    spoolDir: join(data, 'spool'),
    diagnostics: join(data, 'diagnostics.log'),
    priceCacheDir: join(data, 'prices'),
    refreshStatus: join(data, 'prices', 'status.json'),
    refreshLock: join(data, 'prices', 'refresh.lock'),
    codeCacheDir: join(data, CODE_CACHE_DIR),
  };
  last = { key, paths: Object.freeze(p) };
  return p;
};
