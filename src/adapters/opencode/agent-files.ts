/**
 * Where an OpenCode agent's model was configured, for the observation's agentModelFrom. The `config` callback hands the
 * plugin the merged config (1.18.33, seen): an agent from a markdown file carries `name` (OpenCode's loader sets it from
 * the file's path), one from opencode.json does not. The markdown file itself is found the way 1.18.33 scans for it
 * (source: ConfigPaths.directories, `{agent,agents}/**\/*.md` in each): the global config dir, the project's `.opencode`
 * dirs from the directory up to the worktree, `~/.opencode`, then $OPENCODE_CONFIG_DIR; a later directory's agent
 * overrides an earlier one's (merge order, source). Runs once per `config` callback, never on the dispatch path;
 * bounded: a few stat calls per markdown agent, at most MAX_AGENTS agents.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Env } from '../../io/paths.js';

const MAX_AGENTS = 128;
const MAX_UP = 64;

/** The directories OpenCode 1.18.33 reads agent markdown files from, in merge order (later wins). */
export function opencodeConfigDirs(env: Env, directory: string | null, worktree: string | null): string[] {
  const home = env.HOME || homedir();
  const dirs = [join(env.XDG_CONFIG_HOME || join(home, '.config'), 'opencode')];
  if (directory && !env.OPENCODE_DISABLE_PROJECT_CONFIG) {
    const stop = worktree ? resolve(worktree) : null;
    let dir = resolve(directory);
    for (let i = 0; i < MAX_UP; i++) {
      dirs.push(join(dir, '.opencode'));
      const up = dirname(dir);
      if (dir === stop || up === dir) break;
      dir = up;
    }
  }
  dirs.push(join(home, '.opencode'));
  if (env.OPENCODE_CONFIG_DIR) dirs.push(env.OPENCODE_CONFIG_DIR);
  return [...new Set(dirs)];
}

const isFile = (path: string): boolean => {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
};

/** The markdown file an agent named `name` was read from (the last directory that has one), or null. */
export function agentFile(dirs: readonly string[], name: string): string | null {
  // A name is the file's path under agent/ without `.md` (nested folders allowed); never let it climb out.
  if (!name || name.includes('..') || name.startsWith('/')) return null;
  let found: string | null = null;
  for (const dir of dirs) {
    for (const sub of ['agent', 'agents']) {
      const path = join(dir, sub, `${name}.md`);
      if (isFile(path)) found = path;
    }
  }
  return found;
}

/**
 * `name -> where its model was set` for the agents of a merged config: `opencode.json agent.<name>` for a JSON agent,
 * the markdown file's path (or `agent markdown file <name>.md` when it cannot be found) for a file agent.
 */
export function agentSources(
  cfgAgents: Record<string, unknown>,
  env: Env,
  directory: string | null,
  worktree: string | null,
): Map<string, string> {
  const out = new Map<string, string>();
  let dirs: string[] | null = null;
  for (const [name, a] of Object.entries(cfgAgents).slice(0, MAX_AGENTS)) {
    if (typeof a !== 'object' || a === null) continue;
    const fromFile = typeof (a as { name?: unknown }).name === 'string';
    if (!fromFile) {
      out.set(name, `opencode.json agent.${name}`);
      continue;
    }
    dirs ??= opencodeConfigDirs(env, directory, worktree);
    out.set(name, agentFile(dirs, name) ?? `agent markdown file ${name}.md`);
  }
  return out;
}
