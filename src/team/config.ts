/**
 * Where the team ledger is, and the data dir's team files. No node:os here: the SessionEnd hook bundle loads this
 * (team/trigger.ts) and aliases node:os to a shim (scripts/build.mjs); the person label lives in settings.ts.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { Policy } from '../contracts/config.js';
import { loadPolicy } from '../config/load.js';
import { paths, type Env } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';

export const TEAM_URL_ENV = 'TIERGATE_TEAM_URL';

export type TeamUrl = {
  /** null: no team ledger configured (push and the background push do nothing). */
  url: string | null;
  urlFrom: 'env' | 'policy' | null;
  team: Policy['team'];
  /** Policy diagnostics (an invalid team section falls back to none, with a line here). */
  diagnostics: string[];
};

/** team.url from the USER policy file (cwd null: no project file is read at all), TIERGATE_TEAM_URL over it. */
export function teamUrl(env: Env = process.env): TeamUrl {
  const { policy, diagnostics } = loadPolicy(env, null);
  const fromEnv = env[TEAM_URL_ENV]?.trim();
  return {
    url: fromEnv || policy.team.url || null,
    urlFrom: fromEnv ? 'env' : policy.team.url ? 'policy' : null,
    team: policy.team,
    diagnostics,
  };
}

/** The data dir's team files: origin id, push state, status, lock. */
export function teamPaths(env: Env = process.env) {
  const dir = join(paths(env).data, 'team');
  return {
    dir,
    origin: join(dir, 'origin'),
    state: join(dir, 'push-state.sqlite'),
    status: join(dir, 'push-status.json'),
    lock: join(dir, 'push.lock'),
  };
}

/** A small file of the data dir's team/ directory, read only if it is a regular file (a link there is never followed). */
export function readTeamFile(file: string, maxBytes: number): string {
  const st = lstatSync(file);
  if (!st.isFile()) throw Object.assign(new Error(`${file}: not a regular file; refused`), { code: 'EREFUSED' });
  return readTextCapped(file, maxBytes);
}
