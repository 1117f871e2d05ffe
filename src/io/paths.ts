/** Where tiergate keeps its files. Pure functions of the environment passed in; no I/O. */
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Env = Record<string, string | undefined>;

export function configDir(env: Env = process.env): string {
  if (env.TIERGATE_HOME) return join(env.TIERGATE_HOME, 'config');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'tiergate');
}

/**
 * Data dir (ledger, spools, logs, price cache): TIERGATE_HOME wins, then the harness's plugin data dir
 * (Claude Code's CLAUDE_PLUGIN_DATA, Codex's PLUGIN_DATA), then the XDG data dir.
 */
export function dataDir(env: Env = process.env): string {
  if (env.TIERGATE_HOME) return join(env.TIERGATE_HOME, 'data');
  if (env.CLAUDE_PLUGIN_DATA) return env.CLAUDE_PLUGIN_DATA;
  if (env.PLUGIN_DATA) return env.PLUGIN_DATA;
  return join(env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'), 'tiergate');
}

export const paths = (env: Env = process.env) => {
  const data = dataDir(env);
  return {
    config: join(configDir(env), 'config.json'),
    data,
    ledger: join(data, 'ledger.sqlite'),
    spoolDir: join(data, 'spool'),
    diagnostics: join(data, 'diagnostics.log'),
    priceCacheDir: join(data, 'prices'),
    refreshStatus: join(data, 'prices', 'status.json'),
    refreshLock: join(data, 'prices', 'refresh.lock'),
  };
};
