/**
 * The agents a pi subagent tool can run, read the way pi 0.73.1's example tool finds them (source): markdown files
 * with frontmatter `name`, `model` under `<agentDir>/agents/` (user) and the nearest `.pi/agents/` at or above the cwd
 * (project). Bounded: at most 256 files of 64 KiB each, cached for a few seconds (this runs on the dispatch path).
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { diagnose, errorText } from '../../io/diagnostics.js';
import type { Env } from '../../io/paths.js';
import { readTextHead, RefusedFile } from '../../io/read-capped.js';
import { frontmatterStrings } from '../../io/frontmatter.js';

/**
 * `shadows`: the user agent of the same name a project agent hides (the tool's default `user` scope still runs it).
 * `path`: the file it was read from (the observation's agentModelFrom).
 */
export type PiAgent = {
  name: string;
  model: string | null;
  source: 'user' | 'project';
  path?: string;
  shadows?: PiAgent;
};

const MAX_FILES = 256;
const MAX_BYTES = 64 * 1024;
const TTL_MS = 5_000;

export function piAgentDir(env: Env): string {
  return env.PI_CODING_AGENT_DIR || join(env.HOME || homedir(), '.pi', 'agent');
}

/** Only a regular file is read (a FIFO named `x.md` would stop the dispatch in open(2)): read-capped.ts says why. */
const readHead = (path: string): string => readTextHead(path, MAX_BYTES);

/** `name` and `model` from a `---` frontmatter block (io/frontmatter.ts); null when the file has none. */
export function parseAgentFile(
  text: string,
): { name: string | null; description: string | null; model: string | null } | null {
  const f = frontmatterStrings(text);
  if (!f) return null;
  return { name: f.get('name') ?? null, description: f.get('description') ?? null, model: f.get('model') ?? null };
}

const MAX_UP = 64;

/** pi's example looks for `.pi/agents` in the cwd and each parent directory, the nearest wins (source). */
function nearestProjectAgents(cwd: string): string | null {
  let dir = cwd;
  for (let i = 0; i < MAX_UP; i++) {
    const candidate = join(dir, '.pi', 'agents');
    try {
      if (statSync(candidate).isDirectory()) return candidate;
    } catch {
      // not here
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

function scan(dir: string, source: PiAgent['source'], out: Map<string, PiAgent>, env: Env): void {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.md'))
      .slice(0, MAX_FILES);
  } catch {
    return;
  }
  for (const file of names) {
    try {
      const parsed = parseAgentFile(readHead(join(dir, file)));
      if (!parsed) continue;
      // pi's example skips a file without `name` or `description` (source): it is not an agent it can run.
      if (!parsed.name || !parsed.description) continue;
      const name = parsed.name;
      const user = out.get(name);
      out.set(name, {
        name,
        model: parsed.model,
        source,
        path: join(dir, file),
        ...(user && user.source === 'user' ? { shadows: user } : {}),
      });
    } catch (err) {
      // An unreadable agent file is simply not a candidate; a FIFO or device under an agent's name is also worth a line.
      if (err instanceof RefusedFile)
        diagnose('warn', 'pi:agents', `agent file skipped: ${errorText(err)}`, { path: join(dir, file) }, env);
    }
  }
}

const cache = new Map<string, { at: number; agents: Map<string, PiAgent> }>();

/** User agents, then project agents of the same name on top (the example's `both` scope order). */
export function loadPiAgents(env: Env, cwd: string | null, now = Date.now()): Map<string, PiAgent> {
  const key = `${piAgentDir(env)}\0${cwd ?? ''}`;
  const hit = cache.get(key);
  if (hit && now - hit.at < TTL_MS) return hit.agents;
  const agents = new Map<string, PiAgent>();
  scan(join(piAgentDir(env), 'agents'), 'user', agents, env);
  const projectDir = cwd ? nearestProjectAgents(cwd) : null;
  if (projectDir) scan(projectDir, 'project', agents, env);
  cache.set(key, { at: now, agents });
  if (cache.size > 32) cache.delete(cache.keys().next().value as string);
  return agents;
}

/** The agents a call with this `agentScope` can run (pi's example: default `user`; `both` = project over user). */
export function agentsInScope(agents: Map<string, PiAgent>, scope: unknown): Map<string, PiAgent> {
  if (scope === 'both') return agents;
  const out = new Map<string, PiAgent>();
  for (const a of agents.values()) {
    const pick =
      scope === 'project' ? (a.source === 'project' ? a : null) : a.source === 'user' ? a : (a.shadows ?? null);
    if (pick) out.set(pick.name, pick);
  }
  return out;
}

export type PiDefault = { model: string | null; from: string | null };
const settingsCache = new Map<string, { at: number; value: PiDefault }>();

function readSettings(file: string): Record<string, unknown> {
  try {
    const v = JSON.parse(readHead(file)) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The model a child of an agent without `model:` runs on: pi's default model (`defaultProvider`/`defaultModel` of
 * `<agentDir>/settings.json`, the project's `<cwd>/.pi/settings.json` on top), NOT the parent's current model (seen on
 * 0.73.1: a parent on `--model fake/small` ran a model-less agent's child on the settings default). `from` names the
 * settings file that set `defaultModel`. Null when unset.
 */
export function piDefault(env: Env, cwd: string | null, now = Date.now()): PiDefault {
  const key = `${piAgentDir(env)}\0${cwd ?? ''}`;
  const hit = settingsCache.get(key);
  if (hit && now - hit.at < TTL_MS) return hit.value;
  const globalFile = join(piAgentDir(env), 'settings.json');
  const projectFile = cwd ? join(cwd, '.pi', 'settings.json') : null;
  const global = readSettings(globalFile);
  const project = projectFile ? readSettings(projectFile) : {};
  const merged = { ...global, ...project };
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  const id = str(merged.defaultModel);
  const provider = str(merged.defaultProvider);
  const model = id ? (provider && !id.startsWith(`${provider}/`) ? `${provider}/${id}` : id) : null;
  const file = str(project.defaultModel) ? projectFile : globalFile;
  const value = { model, from: model ? `pi settings defaultModel (${file})` : null };
  settingsCache.set(key, { at: now, value });
  if (settingsCache.size > 32) settingsCache.delete(settingsCache.keys().next().value as string);
  return value;
}

export function piDefaultModel(env: Env, cwd: string | null, now = Date.now()): string | null {
  return piDefault(env, cwd, now).model;
}

export function clearPiAgentCache(): void {
  cache.clear();
  settingsCache.clear();
}
