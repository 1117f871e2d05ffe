/**
 * Edits a user's JSON/JSONC file as text (jsonc-parser `modify` + `applyEdits`), so comments, indentation, line
 * endings, a leading BOM and every foreign key survive. Pure: text in, text out; the caller writes.
 */
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parse,
  parseTree,
  printParseErrorCode,
  type JSONPath,
  type ParseError,
} from 'jsonc-parser';

const BOM = '\uFEFF';

export type JsonParse = { ok: true; value: unknown } | { ok: false; reason: string };

/** Parses JSONC leniently (comments, trailing commas) but refuses anything jsonc-parser had to guess at. */
export function parseJsonText(text: string): JsonParse {
  const body = stripBom(text);
  if (body.trim() === '') return { ok: true, value: undefined };
  const errors: ParseError[] = [];
  const value = parse(body, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0]!;
    const { line, column } = lineCol(body, e.offset);
    return { ok: false, reason: `${printParseErrorCode(e.error)} at line ${line}, column ${column}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: 'the top level is not a JSON object' };
  }
  return { ok: true, value };
}

export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

function lineCol(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The style new text should follow: the file's own line ending and indentation (default: LF, two spaces). */
export function detectStyle(text: string): { eol: string; insertSpaces: boolean; tabSize: number } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /\n([ \t]+)\S/.exec(text);
  if (indented && indented[1]!.startsWith('\t')) return { eol, insertSpaces: false, tabSize: 1 };
  const width = indented ? indented[1]!.length : 2;
  return { eol, insertSpaces: true, tabSize: Math.min(Math.max(width, 1), 8) };
}

/** Edits the text with the BOM held aside, so jsonc-parser's offsets are the document's own. */
function edit(text: string, path: JSONPath, value: unknown, isArrayInsertion = false): string {
  const hasBom = text.startsWith(BOM);
  let body = hasBom ? text.slice(1) : text;
  if (body.trim() === '') body = '{}';
  const style = detectStyle(body);
  const edits = modify(body, path, value, { formattingOptions: style, isArrayInsertion });
  const out = applyEdits(body, edits);
  return hasBom ? BOM + out : out;
}

export function getAt(text: string, path: JSONPath): unknown {
  const body = stripBom(text);
  if (body.trim() === '') return undefined;
  const root = parseTree(body, [], { allowTrailingComma: true });
  if (!root) return undefined;
  const node = findNodeAtLocation(root, path);
  if (!node) return undefined;
  return parse(body.slice(node.offset, node.offset + node.length), [], { allowTrailingComma: true });
}

export function setAt(text: string, path: JSONPath, value: unknown): string {
  return edit(text, path, value);
}

export function removeAt(text: string, path: JSONPath): string {
  return edit(text, path, undefined);
}

/** Appends to the array at `path`, creating it when absent. */
export function appendToArray(text: string, path: JSONPath, value: unknown): string {
  const current = getAt(text, path);
  if (Array.isArray(current)) return edit(text, [...path, current.length], value, true);
  return edit(text, path, [value]);
}

/** Removes the first element of the array at `path` deep-equal to `value`; the text is unchanged when none is. */
export function removeFromArray(text: string, path: JSONPath, value: unknown): string {
  const current = getAt(text, path);
  if (!Array.isArray(current)) return text;
  const index = current.findIndex((v) => deepEqual(v, value));
  return index < 0 ? text : edit(text, [...path, index], undefined);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** A fresh file in the default style. */
export function newJsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
