/**
 * Reads a user's TOML (Codex `config.toml`) with a real parser, and edits it as text so comments and layout survive.
 * Pure: text in, text out.
 */
import { parse } from 'smol-toml';
import { withoutBom } from '../io/text.js';

export type TomlParse = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

export function parseTomlText(text: string): TomlParse {
  try {
    return { ok: true, value: parse(withoutBom(text)) as Record<string, unknown> };
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    return { ok: false, reason: msg };
  }
}

/** The dotted key of a table header line (`[a."b.c"]` -> ['a', 'b.c']), or null when the line is not a header. */
export function headerKey(line: string): string[] | null {
  const m = /^\s*\[(?!\[)(.+)\]\s*(#.*)?$/.exec(line);
  if (!m) return null;
  const keys: string[] = [];
  const re = /\s*("((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/gy;
  const body = m[1]!;
  let pos = 0;
  while (pos < body.length) {
    re.lastIndex = pos;
    const k = re.exec(body);
    if (!k) return null;
    keys.push(k[2] !== undefined ? JSON.parse(`"${k[2]}"`) : (k[3] ?? k[4]!));
    pos = re.lastIndex;
  }
  return keys;
}

/**
 * Removes the table whose header is exactly `key` (and its body up to the next header), leaving every other byte
 * alone. Returns the text unchanged when the table is absent. The result is re-parsed: an edit that would break the
 * file is refused by throwing.
 */
export function removeTable(text: string, key: string[]): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(eol);
  const start = lines.findIndex((l) => sameKey(headerKey(l), key));
  if (start < 0) return text;
  let end = start + 1;
  while (end < lines.length && headerKey(lines[end]!) === null && !/^\s*\[\[/.test(lines[end]!)) end++;
  // Blank lines that separated the removed table from the next belong to it.
  const out = [...lines.slice(0, start), ...lines.slice(end)];
  let result = out.join(eol);
  if (start > 0 && start === out.length && result.endsWith(eol + eol)) result = result.slice(0, -eol.length);
  const check = parseTomlText(result);
  if (!check.ok) throw new Error(`removing [${key.join('.')}] would leave invalid TOML: ${check.reason}`);
  return result;
}

function sameKey(a: string[] | null, b: string[]): boolean {
  return a !== null && a.length === b.length && a.every((k, i) => k === b[i]);
}

/** Reads a dotted key from parsed TOML. */
export function tomlGet(value: Record<string, unknown>, key: string[]): unknown {
  let cur: unknown = value;
  for (const k of key) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}
