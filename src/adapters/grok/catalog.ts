/**
 * What Grok Build 1.0.41 would run a subagent on, read the way the binary resolves it (measured against a fake API,
 * highest first): the spawn's own `model` > `[subagents.roles.<type>].model` > `[subagents.models] <type>` > the agent
 * file's `model:` (`.grok/agents/<type>.md`, then `$GROK_HOME/agents/<type>.md`) > the parent's model. And which model
 * ids its catalog knows: a correction naming any other fails the tool's schema and blocks the spawn.
 *
 * The TOML is read with the Codex adapter's scanner for single-line strings (codex/roles.ts), not smol-toml: the
 * installer's parser would add ~28 KB to every dispatch. Bounded: config.toml ≤ 512 KiB, an agent file's head ≤ 65 KiB.
 * Nothing here throws: a file that cannot be read is as if absent.
 */
import { joinPath } from '../../io/paths.js';
import { homedir } from 'node:os';
import type { Env } from '../../contracts/env.js';
import { readTextCapped, readTextHead } from '../../io/read-capped.js';
import { AGENT_HEAD_BYTES } from '../../agent-files/fs.js';
import { parseAgentHead } from '../../agent-files/head.js';
import { tomlStrings } from '../codex/roles.js';

export const CONFIG_MAX_BYTES = 512 * 1024;

/** The catalog 1.0.41 has with no network (`grok models`, seen): its default and one more; the rest is fetched. */
export const BUILT_IN_MODELS: readonly string[] = ['grok-4.6', 'grok-4.5'];

/** $GROK_HOME, else ~/.grok (1.0.41: the binary and its npm launcher both read GROK_HOME). */
export const grokHome = (env: Env): string => env.GROK_HOME || joinPath(env.HOME || homedir(), '.grok');

export type GrokConfig = {
  /** `[model.<id>]` tables: custom or overridden models, each a catalog id. */
  models: string[];
  /** `[subagents.models] <type> = "<model>"`. */
  typeModels: Record<string, string>;
  /** `[subagents.roles.<type>] model = "<model>"`. */
  roleModels: Record<string, string>;
  /** The file read, or null when there is none (or it could not be read). */
  file: string | null;
};

const MODEL_TABLE = /^\s*\[\s*model\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*\]\s*(?:#.*)?$/;

/** The parts of a config.toml the dispatch reads. */
export function parseGrokConfig(text: string, file: string | null = null): GrokConfig {
  const models = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const m = MODEL_TABLE.exec(line);
    if (m) models.add(m[1] ?? m[2] ?? m[3]!);
  }
  const typeModels: Record<string, string> = {};
  const roleModels: Record<string, string> = {};
  for (const { path, value } of tomlStrings(text)) {
    if (path[0] === 'model' && path.length >= 3) models.add(path[1]!);
    if (path[0] !== 'subagents' || value.trim() === '') continue;
    if (path[1] === 'models' && path.length === 3) typeModels[path[2]!] = value.trim();
    if (path[1] === 'roles' && path.length === 4 && path[3] === 'model') roleModels[path[2]!] = value.trim();
  }
  return { models: [...models], typeModels, roleModels, file };
}

export function readGrokConfig(env: Env): GrokConfig {
  const file = joinPath(grokHome(env), 'config.toml');
  try {
    return parseGrokConfig(readTextCapped(file, CONFIG_MAX_BYTES), file);
  } catch {
    return { models: [], typeModels: {}, roleModels: {}, file: null };
  }
}

/** The ids a spawn's `model` may name: the built-in ones and the config's `[model.*]` tables. */
export const knownModels = (config: GrokConfig): string[] => [...new Set([...BUILT_IN_MODELS, ...config.models])];

/** An agent file's `model:`: the project's `.grok/agents/<type>.md` first, then the user's. */
export function agentFileModel(env: Env, cwd: string | null, type: string): { model: string; file: string } | null {
  // A type is a bare name: anything that could leave the agents folder is no file of it.
  if (!/^[A-Za-z0-9_.:-]+$/.test(type) || type.startsWith('.')) return null;
  const dirs = [...(cwd ? [joinPath(cwd, '.grok', 'agents')] : []), joinPath(grokHome(env), 'agents')];
  for (const dir of dirs) {
    const file = joinPath(dir, `${type}.md`);
    let text: string;
    try {
      text = readTextHead(file, AGENT_HEAD_BYTES + 1);
    } catch {
      continue;
    }
    const head = parseAgentHead(text, Buffer.byteLength(text) > AGENT_HEAD_BYTES);
    if (head.kind !== 'agent') continue;
    if (head.model && head.model !== 'inherit') return { model: head.model, file };
    return null;
  }
  return null;
}

export type GrokChild = {
  /** The spawn's own `model`. */
  requestedModel: string | null;
  /** What Grok runs it on when the spawn names none and it does not inherit the parent's, and where that was set. */
  agentModel: string | null;
  agentModelFrom: string | null;
};

export function resolveGrokChild(input: {
  callModel: string | null;
  type: string | null;
  config: GrokConfig;
  agentFile: (type: string) => { model: string; file: string } | null;
}): GrokChild {
  const { callModel, type, config } = input;
  if (callModel) return { requestedModel: callModel, agentModel: null, agentModelFrom: null };
  if (!type) return { requestedModel: null, agentModel: null, agentModelFrom: null };
  const where = config.file ?? 'config.toml';
  const role = Object.hasOwn(config.roleModels, type) ? config.roleModels[type]! : null;
  if (role)
    return { requestedModel: null, agentModel: role, agentModelFrom: `${where} [subagents.roles.${type}].model` };
  const pinned = Object.hasOwn(config.typeModels, type) ? config.typeModels[type]! : null;
  if (pinned)
    return { requestedModel: null, agentModel: pinned, agentModelFrom: `${where} [subagents.models] ${type}` };
  const file = input.agentFile(type);
  if (file) return { requestedModel: null, agentModel: file.model, agentModelFrom: file.file };
  return { requestedModel: null, agentModel: null, agentModelFrom: null };
}
