/**
 * The `---` frontmatter of an agent definition (markdown), read the one way every adapter shares: the block, its
 * top-level keys, and their one-line string values. Pure text (no Node import): the Claude hooks module bundles it.
 * A harness whose rule differs (Claude Code's own block pattern and YAML typing, Copilot's model lists) keeps that on
 * top of frontmatterEntries, in its adapter.
 */
import { withoutBom } from './text.js';

/** The opening `---` line, the block, and the first `---` line after it (trailing blanks allowed on both). */
const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** A top-level key: unindented, then `:` and a blank or the end (YAML's `key:value` is one plain scalar, no key). */
const KEY = /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*))?$/;

/** The text between the opening and closing `---` lines (a leading BOM ignored); null when the text opens with none. */
export function frontmatterBlock(text: string): string | null {
  return BLOCK.exec(withoutBom(text))?.[1] ?? null;
}

/**
 * `/^[ \t]+\S/` by hand (a pattern's first use costs a dispatch hook its compilation): blanks, then a character `trim`
 * keeps, which is what `\S` matches (both go by ECMAScript's WhiteSpace and LineTerminator).
 */
function continues(line: string): boolean {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i > 0 && i < line.length && line[i]!.trim() !== '';
}

/** A top-level key's text after the colon (trimmed) and the indented lines that continue it (a list, a folded value). */
export type FrontmatterEntry = { raw: string; more: string[] };

/** The block's top-level keys, in order; a later duplicate wins (as YAML loaders in Claude Code and Copilot CLI do). */
export function frontmatterEntries(block: string): Map<string, FrontmatterEntry> {
  const lines = block.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const out = new Map<string, FrontmatterEntry>();
  for (let i = 0; i < lines.length; i++) {
    const m = KEY.exec(lines[i]!);
    if (!m) continue;
    const more: string[] = [];
    while (i + 1 < lines.length && continues(lines[i + 1]!)) more.push(lines[++i]!);
    out.delete(m[1]!);
    out.set(m[1]!, { raw: (m[2] ?? '').trim(), more });
  }
  return out;
}

/**
 * A one-line scalar as a string: a double-quoted one with its `\"`, `\\`, `\/` escapes, a single-quoted one with `''`,
 * a plain one less a trailing ` # comment`; null for what is no one-line string (a block `|`/`>`, an anchor, a tag, a
 * flow `[…]`/`{…}`, an unclosed quote).
 */
export function frontmatterScalar(raw: string): string | null {
  const s = raw.trim();
  if (s.startsWith('"'))
    return /^"((?:[^"\\]|\\.)*)"[ \t]*(?:#.*)?$/.exec(s)?.[1]?.replace(/\\(["\\/])/g, '$1') ?? null;
  if (s.startsWith("'")) return /^'((?:[^']|'')*)'[ \t]*(?:#.*)?$/.exec(s)?.[1]?.replace(/''/g, "'") ?? null;
  if (s !== '' && '|>&*!{['.includes(s[0]!)) return null;
  return s.includes('#') ? s.replace(/(?:^|[ \t])#.*$/, '').trim() : s;
}

/** The frontmatter's one-line string values by key (empty ones left out); null when the text has no frontmatter. */
export function frontmatterStrings(text: string): Map<string, string> | null {
  const block = frontmatterBlock(text);
  if (block === null) return null;
  const out = new Map<string, string>();
  for (const [key, e] of frontmatterEntries(block)) {
    const v = e.more.length ? null : frontmatterScalar(e.raw);
    if (v) out.set(key, v);
  }
  return out;
}
