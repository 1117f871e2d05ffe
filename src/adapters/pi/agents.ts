/**
 * The agents a pi subagent tool can run, read the way pi 0.73.1's example tool finds them (source): markdown files
 * with frontmatter `name`, `model` under `<agentDir>/agents/` (user) and `<cwd>/.pi/agents/` (project).
 * Bounded: at most 256 files of 64 KiB each, cached for a few seconds (this runs on the dispatch path).
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../../io/paths.js';

export type PiAgent = { name: string; model: string | null; source: 'user' | 'project' };

const MAX_FILES = 256;
const MAX_BYTES = 64 * 1024;
const TTL_MS = 5_000;

export function piAgentDir(env: Env): string {
  return env.PI_CODING_AGENT_DIR || join(env.HOME || homedir(), '.pi', 'agent');
}

function readHead(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(MAX_BYTES);
    const n = readSync(fd, buf, 0, MAX_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** `name` and `model` from a `---` frontmatter block; null when the file has none. */
export function parseAgentFile(text: string): { name: string | null; model: string | null } | null {
  const m = text.replace(/^\uFEFF/, '').match(/^---\r?\n([\s\S]*?)\r?\n---/);
  if (!m) return null;
  const field = (k: string) => {
    const f = m[1]!.match(new RegExp(`^${k}:\\s*(.*?)\\s*$`, 'm'));
    const v = f ? f[1]!.replace(/^["']|["']$/g, '') : '';
    return v.length ? v : null;
  };
  return { name: field('name'), model: field('model') };
}

function scan(dir: string, source: PiAgent['source'], out: Map<string, PiAgent>): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.md')).slice(0, MAX_FILES);
  } catch {
    return;
  }
  for (const file of names) {
    try {
      const parsed = parseAgentFile(readHead(join(dir, file)));
      if (!parsed) continue;
      const name = parsed.name ?? file.slice(0, -3);
      out.set(name, { name, model: parsed.model, source });
    } catch {
      // An unreadable agent file is simply not a candidate.
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
  scan(join(piAgentDir(env), 'agents'), 'user', agents);
  if (cwd) scan(join(cwd, '.pi', 'agents'), 'project', agents);
  cache.set(key, { at: now, agents });
  if (cache.size > 32) cache.delete(cache.keys().next().value as string);
  return agents;
}

export function clearPiAgentCache(): void {
  cache.clear();
}
