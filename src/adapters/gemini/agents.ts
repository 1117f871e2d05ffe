/**
 * The agents Gemini CLI 0.61.0 can run through `invoke_agent`, and the model each one runs on, found the way its
 * AgentRegistry finds them (packages/core/src/agents/registry.ts, source):
 *
 *   built-ins (codebase_investigator, cli_help, generalist) → the project's `<cwd>/.gemini/agents/*.md`, each only once
 *   acknowledged (its sha256 under `<home>/.gemini/acknowledgments/agents.json`, per project and name) → the user's
 *   `<home>/.gemini/agents/*.md` → each installed extension's `agents/*.md`
 *
 * where the FIRST definition of a name wins (a later one is ignored with a warning), then `agents.overrides.<name>` of
 * the settings (user, then the project's on top) may disable it or set `modelConfig.model`. A file is read only when it
 * is a regular file (Gemini lists directory entries and skips links), named `*.md`, not starting with `_`. An
 * unacknowledged project agent is not registered at all (seen on 0.61.0: headless, `Subagent '<name>' not found`).
 * A definition's `model:` absent or `inherit` runs the child on the session's model (the parent's).
 *
 * `<home>` is GEMINI_CLI_HOME when set, else HOME (0.61.0 `homedir()`, source). Bounded: at most MAX_FILES files of
 * MAX_HEAD bytes per folder, MAX_EXTENSIONS extensions, settings files up to MAX_SETTINGS. Not read (named in
 * docs/gemini-cli.md): folder trust (an untrusted project's agents are skipped by Gemini, here they are read), which
 * extensions are disabled, the system settings file, remote agents' models.
 */
import { homedir } from 'node:os';
import { AgentIndex } from '../../agent-files/agent-index.js';
import { joinPath } from '../../io/paths.js';
import { parseAgentHead } from '../../agent-files/head.js';
import type { Env } from '../../contracts/env.js';
import { frontmatterBlock, frontmatterEntries, frontmatterScalar } from '../../io/frontmatter.js';
import { readTextHead, readTextCapped } from '../../io/read-capped.js';
import { INHERIT } from './models.js';
import { isRecord } from '../../contracts/record.js';

const MAX_FILES = 256;
const MAX_HEAD = 64 * 1024;
const MAX_EXTENSIONS = 64;
const MAX_SETTINGS = 1024 * 1024;
const MAX_ACKED = 1024 * 1024;

export type AgentSource = 'built-in' | 'project' | 'user' | 'extension';

/**
 * One definition as Gemini registers it. `model`: the name it gives (not yet resolved to the wire id), `inherit` for
 * the session's model, or null when tiergate cannot tell (a remote agent, a model that depends on the session model's
 * family when that is unknown). `from`: where it was read (a file path, or `built-in <name>`). `restrictsTools`: the
 * definition names the tools its child may use (frontmatter `tools:`), so switching it to a tier agent (all tools)
 * would widen what the child may do.
 */
export type GeminiAgent = {
  name: string;
  model: string | null;
  from: string;
  source: AgentSource;
  restrictsTools: boolean;
};

/** Where Gemini CLI keeps its user files: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiDir(env: Env): string {
  return joinPath(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini');
}

/**
 * 0.61.0's built-in local agents (source). codebase_investigator runs on `gemini-3-flash-preview` under a Gemini 3 (or
 * non-Gemini) session model, else on `gemini-2.5-pro`; cli_help on the `flash` alias; generalist inherits.
 */
function builtIns(parentModel: string | null): GeminiAgent[] {
  // /^gemini-3(\.|-|$)/ as a string test: a RegExp is compiled on its first run in each hook process.
  const gen3 = parentModel?.startsWith('gemini-3') && ['.', '-', undefined].includes(parentModel[8]);
  const modern = parentModel === null ? null : gen3 || !parentModel.startsWith('gemini-');
  return [
    // Both read-only helpers with their own tool lists (source).
    {
      name: 'codebase_investigator',
      model: modern === null ? null : modern ? 'gemini-3-flash-preview' : 'gemini-2.5-pro',
      from: 'built-in codebase_investigator',
      source: 'built-in',
      restrictsTools: true,
    },
    { name: 'cli_help', model: 'flash', from: 'built-in cli_help', source: 'built-in', restrictsTools: true },
    { name: 'generalist', model: INHERIT, from: 'built-in generalist', source: 'built-in', restrictsTools: false },
  ];
}

/**
 * A Node module loaded at its first use, not when the bundle starts: Node 20 compiles a module's own JavaScript when it
 * is first required (node:module alone pulls in the ESM loader and the source-map code: ~1 M instructions of every
 * Gemini dispatch, bench/README.md session 16). Null when it cannot be loaded.
 */
function builtin<T>(id: string): T | null {
  const p = process as { getBuiltinModule?: (id: string) => unknown };
  return (p.getBuiltinModule?.(id) ?? (typeof require === 'function' ? require(id) : null)) as T | null;
}

/**
 * Gemini's content hash of an agent file (sha256 of its UTF-8 text, hex). node:crypto is loaded only here, for a
 * project that has agent files: a dispatch hook without them never pays for it. Null when it cannot be loaded.
 */
function sha256(text: string): string | null {
  const crypto = builtin<typeof import('node:crypto')>('node:crypto');
  return crypto ? crypto.createHash('sha256').update(text, 'utf8').digest('hex') : null;
}

/** `acknowledged(name, sha256)`: whether Gemini registers this project agent (null: tiergate cannot tell). */
type Acknowledged = (name: string, sha256: string | null) => boolean | null;

/**
 * What the lookup needs of an agent file, kept in the agent index under HEAD_TAG / PROJECT_HEAD_TAG (change the tag
 * with what this returns): its name, `model:` as written, `kind: remote`, a top-level `tools:` key, and for a project
 * agent its content hash. null: the file defines no agent.
 */
type AgentFileFields = { name: string; model: string | null; remote: boolean; tools: boolean; sha256?: string | null };
const HEAD_TAG = 'gemini-head/1';
const PROJECT_HEAD_TAG = 'gemini-project-head/1';

function readAgentFile(path: string, project: boolean): AgentFileFields | null {
  // A project agent is hashed whole (capped), any other only needs its frontmatter.
  const text = project ? readTextCapped(path, MAX_ACKED) : readTextHead(path, MAX_HEAD);
  const head = parseAgentHead(text, text.length >= MAX_HEAD);
  if (head.kind !== 'agent' || !head.name) return null;
  const block = frontmatterBlock(text);
  const keys = block === null ? null : frontmatterEntries(block);
  // `kind: remote`: an A2A agent, no local model tiergate could price.
  const kind = keys?.get('kind');
  const remote = kind !== undefined && !kind.more.length && frontmatterScalar(kind.raw) === 'remote';
  // A top-level `tools:` key (a list, inline or on the following lines).
  const fields = { name: head.name, model: head.model, remote, tools: keys?.has('tools') ?? false };
  return project ? { ...fields, sha256: sha256(text) } : fields;
}

/** Entries a folder listing is read to (a folder with more is read as its first ones). */
const MAX_LISTED = 4096;

function readFolder(
  index: AgentIndex,
  dir: string,
  source: AgentSource,
  out: GeminiAgent[],
  acknowledged?: Acknowledged,
): void {
  const listed = index.list(dir, MAX_LISTED);
  if (listed === null) return; // no such folder
  // Regular files only: Gemini's `entry.isFile()` on directory entries leaves links out too.
  const names = listed
    .filter(([name, kind]) => kind === 'f' && !name.startsWith('_') && name.endsWith('.md'))
    .map(([name]) => name)
    .sort()
    .slice(0, MAX_FILES);
  for (const file of names) {
    const path = joinPath(dir, file);
    let f: AgentFileFields | null;
    try {
      f = index.value(path, acknowledged ? PROJECT_HEAD_TAG : HEAD_TAG, () => readAgentFile(path, !!acknowledged));
    } catch {
      continue; // replaced by something else since the listing, unreadable or too long: Gemini could not load it either
    }
    if (!f) continue;
    const ack = acknowledged ? acknowledged(f.name, f.sha256 ?? null) : true;
    if (ack === false) continue;
    const model = ack === null || f.remote ? null : (f.model ?? INHERIT);
    out.push({ name: f.name, model, from: path, source, restrictsTools: f.tools });
  }
}

type Obj = Record<string, unknown>;

/** A settings file as Gemini reads it (JSON with comments); null when absent or unreadable. */
function readSettings(path: string): Obj | null {
  let text: string;
  try {
    text = readTextCapped(path, MAX_SETTINGS);
  } catch {
    return null;
  }
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    // Comments or trailing commas: jsonc-parser, required only here, so the dispatch bundle does not carry (and compile
    // on every run) a parser most settings files never need.
    try {
      const mod = builtin<typeof import('node:module')>('node:module');
      if (!mod) return null;
      const jsonc = mod.createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser');
      const v: unknown = jsonc.parse(text, [], { allowTrailingComma: true });
      return isRecord(v) ? v : null;
    } catch {
      return null;
    }
  }
}

/** The installed extensions' folders, with a linked extension's own source (0.61.0 `type: link`, source). */
function extensionDirs(index: AgentIndex, base: string): string[] {
  const root = joinPath(base, 'extensions');
  const names = (index.list(root, MAX_LISTED) ?? [])
    .filter(([, kind]) => kind === 'd')
    .map(([name]) => name)
    .sort()
    .slice(0, MAX_EXTENSIONS);
  return names.map((name) => {
    const dir = joinPath(root, name);
    const meta = joinPath(dir, '.gemini-extension-install.json');
    const source = index.value(
      meta,
      'gemini-extension-source/1',
      () => {
        const m = readSettings(meta);
        return m?.type === 'link' && typeof m.source === 'string' ? m.source : null;
      },
      NONE,
    );
    return source ?? dir;
  });
}

export type AgentOverride = { model: string | null; disabled: boolean; from: string };

/** What a settings file that is not there gives (AgentIndex.value's `absent`). */
const NONE = { value: null };

/** A settings file's `agents.overrides` (kept in the agent index: a settings file is read again only when it changed). */
function overridesIn(index: AgentIndex, path: string): Obj | null {
  return index.value(
    path,
    'gemini-overrides/1',
    () => {
      const settings = readSettings(path);
      const agents = settings && isRecord(settings.agents) ? settings.agents : null;
      return agents && isRecord(agents.overrides) ? agents.overrides : null;
    },
    NONE,
  );
}

function overridesFrom(all: Obj | null, path: string, into: Map<string, AgentOverride>): void {
  if (!all) return;
  for (const [name, o] of Object.entries(all)) {
    if (!isRecord(o)) continue;
    const mc = isRecord(o.modelConfig) ? o.modelConfig : null;
    const model = mc && typeof mc.model === 'string' && mc.model.trim() ? mc.model.trim() : null;
    const prev = into.get(name);
    into.set(name, {
      model: model ?? prev?.model ?? null,
      disabled: o.enabled === false ? true : o.enabled === true ? false : (prev?.disabled ?? false),
      from: model ? `${path} agents.overrides.${name}` : (prev?.from ?? path),
    });
  }
}

export type AgentTable = {
  /** By name, the definition Gemini registers (the first one found). */
  get(name: string): GeminiAgent | null;
  names(): string[];
};

/**
 * Every agent Gemini CLI would offer in a session started in `cwd`, with the settings overrides applied (a disabled
 * agent is absent). `parentModel` is the session's model as sent, for the one built-in whose model depends on it.
 */
export function loadAgents(
  env: Env,
  cwd: string | null,
  parentModel: string | null,
  index: AgentIndex = new AgentIndex(null),
): AgentTable {
  const base = geminiDir(env);
  const found: GeminiAgent[] = builtIns(parentModel);
  const projectBase = cwd ? joinPath(cwd, '.gemini') : null;
  if (projectBase && projectBase !== base && cwd) {
    const acksFile = joinPath(base, 'acknowledgments', 'agents.json');
    // This project's acknowledgments only (the tag names the project: another project's hook reads the file again).
    const mine = index.value(
      acksFile,
      `gemini-acks/1 ${cwd}`,
      () => {
        const acks = readSettings(acksFile);
        return acks && isRecord(acks[cwd]) ? acks[cwd] : {};
      },
      { value: {} },
    );
    readFolder(index, joinPath(projectBase, 'agents'), 'project', found, (name, got) => {
      const want = mine[name];
      if (typeof want !== 'string') return false;
      return got === null ? null : got === want;
    });
  }
  readFolder(index, joinPath(base, 'agents'), 'user', found);
  for (const dir of extensionDirs(index, base)) readFolder(index, joinPath(dir, 'agents'), 'extension', found);

  const overrides = new Map<string, AgentOverride>();
  const userSettings = joinPath(base, 'settings.json');
  overridesFrom(overridesIn(index, userSettings), userSettings, overrides);
  if (projectBase && projectBase !== base) {
    const projectSettings = joinPath(projectBase, 'settings.json');
    overridesFrom(overridesIn(index, projectSettings), projectSettings, overrides);
  }

  const byName = new Map<string, GeminiAgent>();
  for (const a of found) {
    if (byName.has(a.name)) continue; // 0.61.0: "Duplicate agent name … The later definition will be ignored."
    const o = overrides.get(a.name);
    if (o?.disabled) continue;
    byName.set(a.name, o?.model ? { ...a, model: o.model, from: o.from } : a);
  }
  return { get: (name) => byName.get(name) ?? null, names: () => [...byName.keys()] };
}
