/**
 * An agent file's head (its YAML frontmatter) as the harnesses that keep agents in Markdown read it: name, model, and
 * whether it is an agent at all. The rules are Claude Code's (2.1.328, source); Gemini CLI and Grok read theirs alike.
 */
import { frontmatterEntries } from '../io/frontmatter.js';
import { AGENT_HEAD_BYTES } from './fs.js';

/** Claude Code's own frontmatter pattern (2.1.328): the block ends at the first `---` after the opening one. */
const FRONTMATTER = /^---\s*\n([\s\S]*?)---\s*\n?/;
const OPENING = /^---\s*\n/;

/** A YAML value as this reader sees it: a string, something that is not a string, or a shape it does not read. */
type Scalar = { kind: 'string'; value: string } | { kind: 'other' } | { kind: 'opaque' };

const NOT_STRING =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/**
 * The words NOT_STRING takes; any other text opening with a letter is no match. So a plain value (a name, a model id)
 * is told from a non-string without the pattern, whose first use costs a dispatch hook its compilation (bench/README.md,
 * "Session 13"): only a value opening with `~`, a digit, a sign or a dot needs it.
 */
const NOT_STRING_WORDS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
function notString(plain: string): boolean {
  const c = plain.charCodeAt(0);
  const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  if (letter) return NOT_STRING_WORDS.has(plain);
  const maybe = c === 126 || c === 43 || c === 45 || c === 46 || (c >= 48 && c <= 57); // ~ + - . 0-9
  return maybe && NOT_STRING.test(plain);
}

/** The escapes a double-quoted value undoes; a value with no backslash has none (the patterns are not run). */
const unescapeDouble = (v: string): string =>
  v.includes('\\')
    ? v
        .replace(/\\(["\\/])/g, '$1')
        .replace(/\\t/g, '\t')
        .replace(/\\n/g, '\n')
    : v;

function scalar(raw: string, continued: boolean): Scalar {
  if (raw === '') return continued ? { kind: 'opaque' } : { kind: 'other' };
  const c = raw[0]!;
  if (c === '"') {
    const m = /^"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$/.exec(raw);
    if (!m) return { kind: 'opaque' };
    return { kind: 'string', value: unescapeDouble(m[1]!) };
  }
  if (c === "'") {
    const m = /^'((?:[^']|'')*)'\s*(?:#.*)?$/.exec(raw);
    return m ? { kind: 'string', value: m[1]!.replace(/''/g, "'") } : { kind: 'opaque' };
  }
  if (c === '[' || c === '{') return { kind: 'other' };
  if (c === '|' || c === '>' || c === '&' || c === '*' || c === '!') return { kind: 'opaque' };
  // A comment needs a `#`: without one the pattern cannot match.
  const plain = (raw.includes('#') ? raw.replace(/[ \t]#.*$/, '') : raw).trim();
  if (continued) return { kind: 'opaque' };
  return notString(plain) ? { kind: 'other' } : { kind: 'string', value: plain };
}

/** The top-level keys of a frontmatter block (io/frontmatter.ts; a later duplicate wins, as in Claude Code 2.1.328). */
function topLevel(block: string): Map<string, Scalar> {
  return new Map([...frontmatterEntries(block)].map(([key, e]) => [key, scalar(e.raw, e.more.length > 0)]));
}

/** What an agent file's head says: its name and model, or that it is no agent, or that its frontmatter is cut or unreadable. */
export type AgentFileHead =
  | { kind: 'agent'; name: string | null; model: string | null; hasDescription: boolean }
  | { kind: 'none' }
  | { kind: 'unreadable'; why: string };

/**
 * Reads the frontmatter of an agent file's head. `truncated`: the head stops before the end of the file. A `model` that
 * is not a string is no model (Claude Code then goes on down the chain); `inherit` (any case) is returned as `inherit`.
 */
export function parseAgentHead(text: string, truncated: boolean): AgentFileHead {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const m = t.indexOf('---', 3) < 0 ? null : FRONTMATTER.exec(t);
  if (!m)
    return truncated && OPENING.test(t)
      ? { kind: 'unreadable', why: `frontmatter longer than ${AGENT_HEAD_BYTES} bytes` }
      : { kind: 'none' };
  const keys = topLevel(m[1] ?? '');
  const name = keys.get('name');
  const model = keys.get('model');
  const description = keys.get('description');
  if (name?.kind === 'opaque' || model?.kind === 'opaque')
    return { kind: 'unreadable', why: 'frontmatter `name` or `model` in a form tiergate does not read' };
  const modelText = model?.kind === 'string' ? model.value.trim() : '';
  return {
    kind: 'agent',
    name: name?.kind === 'string' ? name.value : null,
    model: modelText === '' ? null : modelText.toLowerCase() === 'inherit' ? 'inherit' : modelText,
    hasDescription: description !== undefined && description.kind !== 'other',
  };
}
