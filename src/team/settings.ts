/**
 * Where the team ledger is and who this machine pushes as: `team.url` and `team.user` from the USER policy file only
 * (a project file can never set them: config/project-layer.ts), TIERGATE_TEAM_URL over the url. The origin is a random
 * id kept in the data dir: one per data dir, so the same person on two machines is two origins under one label.
 */
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { createExclusive } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { readTeamFile, teamPaths, teamUrl, type TeamUrl } from './config.js';

export { teamPaths };

export type TeamSettings = Omit<TeamUrl, 'team'> & { user: string };

export function teamSettings(env: Env = process.env): TeamSettings {
  const { team, ...where } = teamUrl(env);
  return { ...where, user: team.user ?? osUser(env) };
}

function osUser(env: Env): string {
  try {
    const name = userInfo().username;
    if (name) return name;
  } catch {
    /* no passwd entry for this uid (containers) */
  }
  return env.USER || env.LOGNAME || 'unknown';
}

const ORIGIN = /^[0-9a-f]{32}$/;

/** This data dir's origin id, made on first use. Never replaced: a new id would push every row again as another machine. */
export function originId(env: Env = process.env): string {
  const file = teamPaths(env).origin;
  const read = (): string | null => {
    try {
      return readTeamFile(file, 256).trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  };
  let id = read();
  if (id === null) {
    // Exclusive create: of two first pushes at once, one id wins and both use it.
    createExclusive(file, `${randomBytes(16).toString('hex')}\n`);
    id = read();
  }
  if (id === '') id = read(); // the other creator's write had not landed yet
  if (id === null || !ORIGIN.test(id))
    throw new Error(`${file} does not hold an origin id (32 hex digits); move it aside to start a new origin`);
  return id;
}
