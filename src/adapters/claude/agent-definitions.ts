/**
 * The model Claude Code runs a child on when tiergate changes nothing, resolved the way the harness resolves it
 * (2.1.328; every rule below was run against the binary, docs/claude-code.md "Which model a child runs on"):
 *
 *   fork → the parent, whatever the call says
 *   CLAUDE_CODE_SUBAGENT_MODEL_FORCE → CLAUDE_CODE_SUBAGENT_MODEL for every child (call and agent file ignored)
 *   the call's `model` > the agent definition's `model:` (`inherit` = the parent) > CLAUDE_CODE_SUBAGENT_MODEL > the parent
 *
 * Agent definitions are found by their frontmatter `name` (not the file name): managed, then the project's
 * `.claude/agents` folders from the session's project dir up to the git root (the nearest wins), then the user's
 * `$CLAUDE_CONFIG_DIR/agents`, then built-ins; `<plugin>:<folder…>:<name>` names a plugin's agent.
 *
 * Pure apart from the AgentFs it is handed: the command hook passes Node's fs (agent-fs-node.ts), the hooks module
 * `$.fs` (module/index.ts). Bounded: at most MAX_AGENT_FILES heads of AGENT_HEAD_BYTES each, MAX_DIR_ENTRIES entries a
 * folder, MAX_DEPTH folders deep, MAX_PROJECT_LEVELS parents. What cannot be read or found is "unknown", never a guess.
 */
import { trimSlash, withoutTrailingSlashes } from '../../io/text.js';
import {
  AGENT_HEAD_BYTES,
  LookupDeadline,
  MAX_AGENT_FILES,
  MAX_DEPTH,
  MAX_DIR_ENTRIES,
  MAX_PROJECT_LEVELS,
  type AgentFs,
  type AgentFsEntry,
} from '../../agent-files/fs.js';
import { parseAgentHead } from '../../agent-files/head.js';

export type AgentSource = 'managed' | 'project' | 'user' | 'plugin' | 'built-in';

/** A definition found: its model (`inherit`, a name Claude Code resolves, or null for none) and where it came from. */
export type AgentDefinition = {
  name: string;
  model: string | null;
  source: AgentSource;
  path: string | null;
  display: string;
};

export type AgentLookup =
  | { kind: 'found'; def: AgentDefinition }
  | { kind: 'not-found'; searched: string[] }
  | { kind: 'unknown'; why: string };

/**
 * Claude Code's built-in agents (2.1.328, seen and source). Explore's `inherit` is capped at opus under a parent of a
 * family above opus (seen: a fable parent's Explore ran on claude-opus-5-5), see exploreCap.
 */
export const BUILT_IN_AGENTS: Record<string, string | null> = {
  'general-purpose': null,
  claude: null,
  Explore: 'inherit',
  Plan: 'inherit',
  'statusline-setup': 'sonnet',
};

/** Where the lookup looks, as the session sees it. */
export type AgentPlaces = {
  /** The session's project dir (CLAUDE_PROJECT_DIR / the payload's cwd / `$.session.cwd()`). */
  projectDir: string | null;
  /** `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  configDir: string | null;
  home: string | null;
};

/** Managed agent folders Claude Code reads first (its managed settings dir + `/.claude/agents`; 2.1.328 source). */
export const MANAGED_AGENT_DIRS = [
  '/etc/claude-code/.claude/agents',
  '/Library/Application Support/ClaudeCode/.claude/agents',
];

const join = (a: string, b: string) => (a.endsWith('/') ? a + b : `${a}/${b}`);
const parentOf = (p: string) => {
  const i = withoutTrailingSlashes(p).lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
};

/** `~/…` for a path under home, else the path; a project agent is shown relative to the project dir. */
export function displayPath(path: string, places: AgentPlaces): string {
  const project = places.projectDir ? trimSlash(places.projectDir) : null;
  if (project && path.startsWith(`${project}/`)) return path.slice(project.length + 1);
  const home = places.home ? trimSlash(places.home) : null;
  if (home && home !== '/' && path.startsWith(`${home}/`)) return `~/${path.slice(home.length + 1)}`;
  return path;
}

type Budget = { files: number };

type Scan = { found: AgentDefinition | null; unknown: string | null };

/**
 * One agents folder: the definition named `name` in it, looking at `<name>.md` first (the usual layout), then at every
 * other `.md` file, subfolders included (Claude Code scans them recursively: seen). A file that cannot be read counts
 * against the lookup only when its file name is the agent's name (it is then most likely the definition).
 */
async function scanFolder(
  fs: AgentFs,
  dir: string,
  name: string,
  source: AgentSource,
  places: AgentPlaces,
  budget: Budget,
  opts: { requireDescription: boolean; namespace?: string[]; fileNameFallback?: boolean },
): Promise<Scan | null> {
  const top = await fs.list(dir);
  if (top === null) return null;
  const files: string[] = [];
  const walk = async (d: string, entries: AgentFsEntry[], depth: number, ns: string[]): Promise<string | null> => {
    if (entries.length > MAX_DIR_ENTRIES) return `more than ${MAX_DIR_ENTRIES} entries in ${displayPath(d, places)}`;
    // A plugin agent's subfolders are its name's namespace (`<plugin>:<folder>:<name>`): only the one named is walked.
    const want = opts.namespace?.[ns.length];
    for (const e of entries) {
      if (
        e.kind === 'file' &&
        e.name.endsWith('.md') &&
        (opts.namespace === undefined || ns.length === opts.namespace.length)
      )
        files.push(join(d, e.name));
    }
    for (const e of entries) {
      if (e.kind !== 'dir' || (opts.namespace !== undefined && e.name !== want)) continue;
      if (depth >= MAX_DEPTH) return `agents nested deeper than ${MAX_DEPTH} folders in ${displayPath(d, places)}`;
      const sub = await fs.list(join(d, e.name));
      if (sub === null) continue;
      const stop = await walk(join(d, e.name), sub, depth + 1, [...ns, e.name]);
      if (stop) return stop;
    }
    return null;
  };
  const stop = await walk(dir, top, 0, []);
  if (stop) return { found: null, unknown: stop };
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1, -3);
  // `<name>.md` first: a file named like the agent almost always defines it.
  files.sort((a, b) => Number(base(b) === name) - Number(base(a) === name));
  for (const path of files) {
    if (budget.files <= 0) return { found: null, unknown: `more than ${MAX_AGENT_FILES} agent files to read` };
    budget.files -= 1;
    let text: string;
    try {
      text = await fs.head(path, AGENT_HEAD_BYTES + 1);
    } catch (err) {
      if (err instanceof LookupDeadline) throw err;
      if (base(path) === name)
        return {
          found: null,
          unknown: `cannot read ${displayPath(path, places)}: ${(err as Error)?.message ?? String(err)}`,
        };
      continue;
    }
    const head = parseAgentHead(text, utf8Length(text) > AGENT_HEAD_BYTES);
    if (head.kind === 'unreadable') {
      if (base(path) === name) return { found: null, unknown: `${displayPath(path, places)}: ${head.why}` };
      continue;
    }
    if (head.kind !== 'agent') continue;
    const defName = head.name ?? (opts.fileNameFallback ? base(path) : null);
    if (defName !== name) continue;
    if (opts.requireDescription && !head.hasDescription) continue;
    return { found: { name, model: head.model, source, path, display: displayPath(path, places) }, unknown: null };
  }
  return { found: null, unknown: null };
}

/** UTF-8 length of a string, without Buffer (the hooks module has none). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The project's agents folders, nearest first: the project dir and each parent up to the git root, never home itself. */
export async function projectAgentDirs(fs: AgentFs, places: AgentPlaces): Promise<string[]> {
  if (!places.projectDir || !places.projectDir.startsWith('/')) return [];
  const home = places.home ? trimSlash(places.home) : null;
  const out: string[] = [];
  let d = trimSlash(places.projectDir);
  for (let i = 0; i < MAX_PROJECT_LEVELS; i++) {
    if (d === home) break;
    out.push(join(d, '.claude/agents'));
    if (await fs.exists(join(d, '.git'))) break;
    const up = parentOf(d);
    if (up === d) break;
    d = up;
  }
  return out;
}

/**
 * The definition of `name` as Claude Code would pick it: managed, project (nearest first), user, built-in. A name with
 * `:` is a plugin's agent (plain agent names may not contain one: 2.1.328 source) and needs `pluginRoots`.
 */
export async function lookupAgent(
  fs: AgentFs,
  name: string,
  places: AgentPlaces,
  pluginRoots?: (plugin: string) => Promise<string[] | null>,
): Promise<AgentLookup> {
  const budget: Budget = { files: MAX_AGENT_FILES };
  if (name.includes(':')) {
    const [plugin, ...rest] = name.split(':');
    const agent = rest.pop()!;
    const roots = plugin && agent && pluginRoots ? await pluginRoots(plugin) : null;
    if (!roots || roots.length === 0) {
      return {
        kind: 'unknown',
        why: `plugin ${plugin} is not an installed plugin tiergate can see (a --plugin-dir or managed plugin?)`,
      };
    }
    for (const root of roots) {
      const scan = await scanFolder(fs, join(root, 'agents'), agent, 'plugin', places, budget, {
        requireDescription: false,
        namespace: rest,
        fileNameFallback: true,
      });
      if (scan?.unknown) return { kind: 'unknown', why: scan.unknown };
      if (scan?.found) return { kind: 'found', def: { ...scan.found, name } };
    }
    // A plugin's manifest can name other agent paths; tiergate reads only the default folder.
    return {
      kind: 'unknown',
      why: `agent ${name} is not in ${roots.map((r) => displayPath(join(r, 'agents'), places)).join(', ')}`,
    };
  }
  const dirs: Array<[string, AgentSource]> = [
    ...MANAGED_AGENT_DIRS.map((d): [string, AgentSource] => [d, 'managed']),
    ...(await projectAgentDirs(fs, places)).map((d): [string, AgentSource] => [d, 'project']),
    ...(places.configDir ? [[join(places.configDir, 'agents'), 'user'] as [string, AgentSource]] : []),
  ];
  for (const [dir, source] of dirs) {
    const scan = await scanFolder(fs, dir, name, source, places, budget, { requireDescription: true });
    if (scan?.unknown) return { kind: 'unknown', why: scan.unknown };
    if (scan?.found) return { kind: 'found', def: scan.found };
  }
  if (Object.hasOwn(BUILT_IN_AGENTS, name)) {
    return {
      kind: 'found',
      def: { name, model: BUILT_IN_AGENTS[name]!, source: 'built-in', path: null, display: `built-in agent ${name}` },
    };
  }
  return { kind: 'not-found', searched: dirs.map(([d]) => displayPath(d, places)) };
}

/** The environment variables of Claude Code's that change a child's model (2.1.328 source; effects seen). */
export type ClaudeModelEnv = {
  CLAUDE_CODE_SUBAGENT_MODEL?: string;
  CLAUDE_CODE_SUBAGENT_MODEL_FORCE?: string;
  CLAUDE_CODE_DISABLE_EXPLORE_INHERIT_CAP?: string;
  CLAUDE_CODE_USE_BEDROCK?: string;
  CLAUDE_CODE_USE_VERTEX?: string;
  CLAUDE_CODE_USE_FOUNDRY?: string;
  CLAUDE_CODE_USE_ANTHROPIC_AWS?: string;
  CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD?: string;
  CLAUDE_CODE_USE_MANTLE?: string;
};

/** Claude Code's boolean variables: 1, true, yes, on (any case) are on (2.1.328 source). */
export const envOn = (v: string | undefined): boolean =>
  v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());

export const SUBAGENT_MODEL_VAR = 'CLAUDE_CODE_SUBAGENT_MODEL';

/**
 * Explore's `inherit` becomes opus when the parent is of a family above opus (fable, mythos), on Anthropic's own API
 * only, unless CLAUDE_CODE_DISABLE_EXPLORE_INHERIT_CAP (2.1.328 source; seen: fable parent -> claude-opus-5-5).
 */
export function exploreCap(parentModel: string | null, env: ClaudeModelEnv): string | null {
  if (!parentModel || !/fable|mythos/i.test(parentModel) || envOn(env.CLAUDE_CODE_DISABLE_EXPLORE_INHERIT_CAP))
    return null;
  const thirdParty = [
    env.CLAUDE_CODE_USE_BEDROCK,
    env.CLAUDE_CODE_USE_VERTEX,
    env.CLAUDE_CODE_USE_FOUNDRY,
    env.CLAUDE_CODE_USE_ANTHROPIC_AWS,
    env.CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD,
    env.CLAUDE_CODE_USE_MANTLE,
  ].some(envOn);
  return thirdParty ? null : 'opus';
}

/** What the observation needs: the model the child runs on without tiergate, where it comes from, and whether a rewrite works. */
export type ChildModel = {
  /** The call's model as Claude Code uses it; null when it names none or the harness ignores it (fork, FORCE). */
  requestedModel: string | null;
  /** The model the agent definition or a harness default puts the child on; null when it inherits the parent. */
  agentModel: string | null;
  agentModelFrom: string | null;
  /** A `model` rewrite takes effect (false for a fork and under CLAUDE_CODE_SUBAGENT_MODEL_FORCE). */
  rewriteHonoured: boolean;
  /** Set when what Claude Code will do could not be told: then nothing may be rewritten (a default tier could raise it). */
  unknown: string | null;
};

/** `subagent_type` absent: Claude Code runs general-purpose (seen: the same model as general-purpose). */
export const DEFAULT_AGENT = 'general-purpose';

/**
 * The chain at the top of this file, given the call and (lazily) the agent lookup. `lookup` is called only when the
 * definition decides: not for a fork, nor when the call's model or a forced default wins anyway.
 */
export async function resolveChildModel(input: {
  subagentType: string | null;
  callModel: string | null;
  fork: boolean;
  parentModel: string | null;
  env: ClaudeModelEnv;
  lookup: (name: string) => Promise<AgentLookup>;
}): Promise<ChildModel> {
  const none = { requestedModel: null, agentModel: null, agentModelFrom: null, unknown: null };
  if (input.fork) return { ...none, rewriteHonoured: false };
  const force = envOn(input.env.CLAUDE_CODE_SUBAGENT_MODEL_FORCE);
  const envModel = input.env.CLAUDE_CODE_SUBAGENT_MODEL?.trim() || null;
  const envInherits = envModel === null || envModel === 'inherit';
  if (!force && input.callModel) return { ...none, requestedModel: input.callModel, rewriteHonoured: true };
  if (force && !envInherits) {
    return {
      ...none,
      agentModel: envModel,
      agentModelFrom: `${SUBAGENT_MODEL_VAR} (forced by ${SUBAGENT_MODEL_VAR}_FORCE)`,
      rewriteHonoured: false,
    };
  }
  const name = input.subagentType ?? DEFAULT_AGENT;
  // Forced with no model of its own, every child inherits, the agent file's model dropped; only the built-in Explore's
  // cap still holds (2.1.328 source), so only an Explore needs its definition read.
  if (force && name !== 'Explore') return { ...none, rewriteHonoured: false };
  let found: AgentLookup;
  try {
    found = await input.lookup(name);
  } catch (err) {
    found = { kind: 'unknown', why: `agent lookup failed: ${(err as Error)?.message ?? String(err)}` };
  }
  if (force && found.kind !== 'found') return { ...none, rewriteHonoured: false };
  if (found.kind === 'unknown') return { ...none, rewriteHonoured: true, unknown: `agent ${name}: ${found.why}` };
  if (found.kind === 'not-found') {
    // Claude Code then refuses the call (`Agent type '…' not found`) unless the agent comes from where tiergate cannot
    // look (the --agents flag, --add-dir folders, a --plugin-dir plugin): unknown either way.
    return {
      ...none,
      rewriteHonoured: true,
      unknown: `agent ${name} is defined nowhere tiergate looks (${found.searched.join(', ')}, built-ins)`,
    };
  }
  const def = found.def;
  const cap = def.source === 'built-in' && name === 'Explore' ? exploreCap(input.parentModel, input.env) : null;
  const capped = {
    agentModel: cap,
    agentModelFrom: cap ? 'built-in agent Explore, capped at opus under a parent above opus' : null,
  };
  if (force) return { ...none, ...capped, rewriteHonoured: false };
  if (def.model === 'inherit') return { ...none, ...capped, rewriteHonoured: true };
  if (def.model) return { ...none, agentModel: def.model, agentModelFrom: def.display, rewriteHonoured: true };
  if (!envInherits) return { ...none, agentModel: envModel, agentModelFrom: SUBAGENT_MODEL_VAR, rewriteHonoured: true };
  return { ...none, rewriteHonoured: true };
}

/** Settings and Claude Code's plugin registry are read whole up to this size; a larger one is not read (unknown). */
const JSON_HEAD_BYTES = 1024 * 1024;

async function readJson(fs: AgentFs, path: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.head(path, JSON_HEAD_BYTES));
  } catch (err) {
    if (err instanceof LookupDeadline) throw err;
    return null;
  }
}

const record = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * The install folders of the plugin named `plugin` that Claude Code has installed and not turned off: entries
 * `<plugin>@<marketplace>` of `$CLAUDE_CONFIG_DIR/plugins/installed_plugins.json` (`installPath`), less those that
 * `enabledPlugins` sets to false (user settings, then the project's `.claude/settings.json` and `settings.local.json`
 * over them). Seen on 2.1.328: `claude plugin install` writes both. A directory marketplace's plugin is read in place by
 * Claude Code; its install copy holds the same files as of the install.
 */
export async function installedPluginRoots(fs: AgentFs, places: AgentPlaces, plugin: string): Promise<string[]> {
  if (!places.configDir) return [];
  const registry = record(
    record(await readJson(fs, join(places.configDir, 'plugins/installed_plugins.json')))?.plugins,
  );
  if (!registry) return [];
  const enabled = new Map<string, unknown>();
  const settings = [
    join(places.configDir, 'settings.json'),
    ...(places.projectDir
      ? [join(places.projectDir, '.claude/settings.json'), join(places.projectDir, '.claude/settings.local.json')]
      : []),
  ];
  for (const path of settings) {
    const on = record(record(await readJson(fs, path))?.enabledPlugins);
    for (const [k, v] of Object.entries(on ?? {})) enabled.set(k, v);
  }
  const roots: string[] = [];
  for (const [key, installs] of Object.entries(registry)) {
    const at = key.lastIndexOf('@');
    if (at <= 0 || key.slice(0, at) !== plugin || enabled.get(key) === false || !Array.isArray(installs)) continue;
    for (const i of installs) {
      const path = record(i)?.installPath;
      if (typeof path === 'string' && path.startsWith('/') && !roots.includes(path)) roots.push(path);
    }
  }
  return roots;
}

/** The whole lookup for one session: plain names and plugin agents. */
export function agentLookup(fs: AgentFs, places: AgentPlaces): (name: string) => Promise<AgentLookup> {
  return (name) => lookupAgent(fs, name, places, (plugin) => installedPluginRoots(fs, places, plugin));
}

/** A name no agent has: looking it up reads every folder and file head a real lookup would. */
export const WARM_UP_NAME = '\u0000tiergate-warm-up';
/** Installed plugins whose agents folder is read ahead (each is one more folder of heads). */
const MAX_WARM_PLUGINS = 16;

/**
 * Reads what any lookup in this session could need, for an AgentFs that keeps it (agent-fs-snapshot.ts): the managed,
 * project and user folders, the plugin registry and settings, and the top of each installed plugin's agents folder.
 * Rejects with LookupDeadline when the AgentFs runs out of time; what was read by then is kept by the snapshot.
 */
export async function warmUpAgentLookup(fs: AgentFs, places: AgentPlaces): Promise<void> {
  await lookupAgent(fs, WARM_UP_NAME, places);
  if (!places.configDir) return;
  const registry =
    record(record(await readJson(fs, join(places.configDir, 'plugins/installed_plugins.json')))?.plugins) ?? {};
  const plugins = [
    ...new Set(
      Object.keys(registry)
        .map((k) => k.slice(0, Math.max(0, k.lastIndexOf('@'))))
        .filter(Boolean),
    ),
  ].slice(0, MAX_WARM_PLUGINS);
  for (const plugin of plugins)
    await lookupAgent(fs, `${plugin}:${WARM_UP_NAME}`, places, (p) => installedPluginRoots(fs, places, p));
}
