/**
 * The model GitHub Copilot CLI runs a `task` child on when tiergate changes nothing (1.0.102; every rule below run
 * against the binary under BYOK, docs/copilot-cli.md "Which model a child runs on"):
 *
 *   the call's `model` > the custom agent's `model:` (`inherit` = the parent's; a list: its first entry under BYOK)
 *   > the parent's
 *
 * Custom agents are found by their frontmatter `name`, else the file name less `.agent.md` / `.md`, in
 * `$COPILOT_HOME/agents/**` first (it shadows the project's and the built-ins, seen), then the project's
 * `.github/agents/**` and `.claude/agents/**` (in that order, seen) from the project dir up to the git root. The built-in
 * agents ran on the parent's model under BYOK whatever their definitions list (seen); with GitHub's own models a
 * built-in's list may apply, which tiergate cannot tell offline: unknown there.
 *
 * Bounded like Claude Code's lookup (agent-files/fs.ts, the file access it shares with Claude Code's): at most MAX_AGENT_FILES
 * heads of AGENT_HEAD_BYTES, MAX_DIR_ENTRIES entries a folder, MAX_DEPTH folders deep, MAX_PROJECT_LEVELS parents.
 */
import { trimSlash } from '../../io/text.js';
import { frontmatterBlock, frontmatterEntries, frontmatterScalar } from '../../io/frontmatter.js';
import {
  AGENT_HEAD_BYTES,
  MAX_AGENT_FILES,
  MAX_DEPTH,
  MAX_DIR_ENTRIES,
  MAX_PROJECT_LEVELS,
  parsedHead,
  type AgentFs,
  type HeadParser,
} from '../../agent-files/fs.js';

/** A frontmatter `model:` as Copilot CLI reads it. */
export type AgentModelField =
  | { kind: 'none' }
  | { kind: 'inherit' }
  | { kind: 'one'; value: string }
  | { kind: 'list'; values: string[] }
  | { kind: 'unreadable' };

export type CopilotAgentHead = { name: string | null; model: AgentModelField } | null;

const unquote = frontmatterScalar;

function modelField(raw: string, block: string[]): AgentModelField {
  const v = raw.replace(/[ \t]#.*$/, '').trim();
  if (v === '' && block.length === 0) return { kind: 'none' };
  let values: (string | null)[];
  if (v === '') values = block.map((l) => unquote(l.replace(/^[ \t]*-[ \t]*/, '')));
  else if (v.startsWith('[')) {
    if (!v.endsWith(']')) return { kind: 'unreadable' };
    values = v
      .slice(1, -1)
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '')
      .map(unquote);
  } else {
    const one = unquote(v);
    if (one === null) return { kind: 'unreadable' };
    if (one === '' || one === '~' || one === 'null') return { kind: 'none' };
    return one.toLowerCase() === 'inherit' ? { kind: 'inherit' } : { kind: 'one', value: one };
  }
  if (values.some((x) => x === null || x === '')) return { kind: 'unreadable' };
  return values.length ? { kind: 'list', values: values as string[] } : { kind: 'none' };
}

/** An agent file's head: its `name` and `model`, or null when it has no frontmatter. */
export function parseCopilotAgentHead(text: string): CopilotAgentHead {
  const block = frontmatterBlock(text);
  if (block === null) return null;
  const keys = frontmatterEntries(block);
  const n = keys.get('name');
  const m = keys.get('model');
  const name = n && !n.more.length ? unquote(n.raw) || null : null;
  // Copilot's own rule on top of the shared parse: `model` may be a YAML list (inline, or `- ` lines under the key).
  const model: AgentModelField = !m
    ? { kind: 'none' }
    : m.more.length && !m.more.every((l) => /^[ \t]+-/.test(l))
      ? { kind: 'unreadable' }
      : modelField(m.raw, m.more);
  return { name, model };
}

/** The head as the lookup reads it, kept by a command hook's agent index under this tag (change it with the parse). */
export const COPILOT_HEAD: HeadParser<CopilotAgentHead> = {
  tag: 'copilot-head/1',
  maxBytes: AGENT_HEAD_BYTES,
  parse: parseCopilotAgentHead,
};

/** Copilot CLI 1.0.102's built-in agents ("Valid types are: …", seen) and the models their definitions list (source). */
export const BUILT_IN_AGENTS: Readonly<Record<string, readonly string[]>> = {
  explore: ['gpt-5.6-luna', 'gpt-5.4-mini'],
  task: ['gpt-5.6-luna', 'gpt-5.4-mini', 'claude-haiku-4.5'],
  'general-purpose': [],
  'rubber-duck': [],
  'code-review': [],
  research: ['claude-sonnet-5'],
  'security-review': [],
};

export type AgentPlaces = { copilotHome: string | null; projectDir: string | null; home: string | null };

export type CopilotAgentLookup =
  | { kind: 'found'; model: AgentModelField; path: string }
  | { kind: 'built-in'; models: readonly string[] }
  | { kind: 'not-found'; searched: string[] }
  | { kind: 'unknown'; why: string };

const join = (a: string, b: string) => (a.endsWith('/') ? a + b : `${a}/${b}`);
const stem = (file: string) => file.replace(/\.agent\.md$/, '').replace(/\.md$/, '');

/** The project's agent folders, nearest first: `.github/agents` then `.claude/agents` at each level up to the git root. */
export async function projectAgentDirs(fs: AgentFs, places: AgentPlaces): Promise<string[]> {
  if (!places.projectDir?.startsWith('/')) return [];
  const home = places.home ? trimSlash(places.home) : null;
  const out: string[] = [];
  let d = trimSlash(places.projectDir);
  for (let i = 0; i < MAX_PROJECT_LEVELS && d !== home; i++) {
    out.push(join(d, '.github/agents'), join(d, '.claude/agents'));
    if (await fs.exists(join(d, '.git'))) break;
    const up = d.lastIndexOf('/') <= 0 ? '/' : d.slice(0, d.lastIndexOf('/'));
    if (up === d) break;
    d = up;
  }
  return out;
}

type Budget = { files: number };

/** One folder (recursively): the definition of `name`, files named like it read first. */
async function scanFolder(fs: AgentFs, dir: string, name: string, budget: Budget): Promise<CopilotAgentLookup | null> {
  const files: string[] = [];
  const walk = async (d: string, depth: number): Promise<string | null> => {
    const entries = await fs.list(d);
    if (entries === null) return null;
    if (entries.length > MAX_DIR_ENTRIES) return `more than ${MAX_DIR_ENTRIES} entries in ${d}`;
    for (const e of entries) if (e.kind === 'file' && e.name.endsWith('.md')) files.push(join(d, e.name));
    for (const e of entries) {
      if (e.kind !== 'dir') continue;
      if (depth >= MAX_DEPTH) return `agents nested deeper than ${MAX_DEPTH} folders in ${d}`;
      const stop = await walk(join(d, e.name), depth + 1);
      if (stop) return stop;
    }
    return null;
  };
  const stop = await walk(dir, 0);
  if (stop) return { kind: 'unknown', why: stop };
  const base = (p: string) => stem(p.slice(p.lastIndexOf('/') + 1));
  files.sort((a, b) => Number(base(b) === name) - Number(base(a) === name));
  for (const path of files) {
    if (budget.files-- <= 0) return { kind: 'unknown', why: `more than ${MAX_AGENT_FILES} agent files to read` };
    let head: CopilotAgentHead;
    try {
      head = await parsedHead(fs, path, COPILOT_HEAD);
    } catch (err) {
      if (base(path) === name)
        return { kind: 'unknown', why: `cannot read ${path}: ${(err as Error)?.message ?? String(err)}` };
      continue;
    }
    if ((head?.name ?? base(path)) !== name) continue;
    return { kind: 'found', model: head?.model ?? { kind: 'none' }, path };
  }
  return null;
}

/** The definition of `name` as Copilot CLI picks it: user, project (nearest first), built-in. */
export async function lookupCopilotAgent(fs: AgentFs, name: string, places: AgentPlaces): Promise<CopilotAgentLookup> {
  const budget: Budget = { files: MAX_AGENT_FILES };
  const dirs = [
    ...(places.copilotHome ? [join(places.copilotHome, 'agents')] : []),
    ...(await projectAgentDirs(fs, places)),
  ];
  for (const dir of dirs) {
    const r = await scanFolder(fs, dir, name, budget);
    if (r) return r;
  }
  if (Object.hasOwn(BUILT_IN_AGENTS, name)) return { kind: 'built-in', models: BUILT_IN_AGENTS[name]! };
  return { kind: 'not-found', searched: dirs };
}

export type CopilotChild = {
  /** The call's `model`; null when it names none. */
  requestedModel: string | null;
  /** The agent definition's model; null when the child runs on the parent's. */
  agentModel: string | null;
  agentModelFrom: string | null;
  /** Why what Copilot CLI will run could not be told: then nothing is rewritten (a default tier could raise the cost). */
  unknown: string | null;
};

/**
 * The chain at the top of this file. `byok`: what the parent's usage line said (parent-model.ts), which decides what a
 * model list means. `lookup` runs only when the call names no model.
 */
export async function resolveCopilotChild(input: {
  agentType: string;
  callModel: string | null;
  byok: boolean | null;
  lookup: (name: string) => Promise<CopilotAgentLookup>;
}): Promise<CopilotChild> {
  const none = { requestedModel: null, agentModel: null, agentModelFrom: null, unknown: null };
  if (input.callModel) return { ...none, requestedModel: input.callModel };
  const name = input.agentType;
  let found: CopilotAgentLookup;
  try {
    found = await input.lookup(name);
  } catch (err) {
    found = { kind: 'unknown', why: `agent lookup failed: ${(err as Error)?.message ?? String(err)}` };
  }
  switch (found.kind) {
    case 'unknown':
      return { ...none, unknown: `agent ${name}: ${found.why}` };
    case 'not-found':
      // Copilot then refuses the call (`Unknown agent_type`, seen) unless the agent comes from where tiergate does not
      // look (a plugin's agents, --add-dir folders): unknown either way.
      return {
        ...none,
        unknown: `agent ${name} is defined nowhere tiergate looks (${found.searched.join(', ')}, built-ins)`,
      };
    case 'built-in':
      if (found.models.length === 0 || input.byok === true) return none;
      return {
        ...none,
        unknown: `built-in agent ${name} lists ${found.models.join(', ')}; with GitHub's own models Copilot picks the first available, which tiergate cannot tell`,
      };
    case 'found': {
      const m = found.model;
      if (m.kind === 'none' || m.kind === 'inherit') return none;
      if (m.kind === 'one') return { ...none, agentModel: m.value, agentModelFrom: found.path };
      if (m.kind === 'list' && input.byok === true)
        return { ...none, agentModel: m.values[0]!, agentModelFrom: `${found.path} (first of its list, BYOK)` };
      return {
        ...none,
        unknown:
          m.kind === 'list'
            ? `agent ${name} lists models (${m.values.join(', ')}); which one Copilot picks depends on what is available`
            : `agent ${name}: model: in ${found.path} in a form tiergate does not read`,
      };
    }
  }
}
