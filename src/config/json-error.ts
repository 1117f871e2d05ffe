/**
 * Where a text stops being JSON, as a position and never as text. JSON.parse's own message quotes the document (Node 20:
 * `Unexpected token 'S', "SECRET_TOK"... is not valid JSON`), and a policy path can be a symlink to any file the user
 * can read: the diagnostic log and `config check` must not carry its content. V8 names a position for only some
 * errors, so the position comes from this scanner (JSON as JSON.parse reads it: RFC 8259). Not jsonc-parser: it is
 * lenient by design, and it would add its ~20 KB to every dispatch hook's bundle for a path that runs on a broken file.
 * Iterative, so a 500k-deep document cannot overflow the stack. Runs only after JSON.parse has failed.
 */

const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The UTF-16 offset of the first character where `text` is no longer JSON (its length: it ended early), or null. */
export function jsonErrorOffset(text: string): number | null {
  const n = text.length;
  let i = 0;
  const ws = () => {
    while (i < n && isWs(text.charCodeAt(i))) i++;
  };
  // Each reader advances `i` past what it accepts, or returns false with `i` at the offending character.
  const string = (): boolean => {
    if (text[i] !== '"') return false;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          for (let k = 2; k < 6; k++) if (!isHex(text.charCodeAt(i + k))) return ((i += k), false);
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) i += 2;
        else return ((i += 1), false);
        continue;
      }
      i++;
    }
    return false;
  };
  const digits = (): boolean => {
    if (!isDigit(text.charCodeAt(i))) return false;
    while (isDigit(text.charCodeAt(i))) i++;
    return true;
  };
  const number = (): boolean => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (!digits()) return false;
    if (text[i] === '.') {
      i++;
      if (!digits()) return false;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!digits()) return false;
    }
    return true;
  };
  const word = (w: string): boolean => {
    for (let k = 0; k < w.length; k++, i++) if (text[i] !== w[k]) return false;
    return true;
  };
  /** `"key" :` with the whitespace around it. */
  const key = (): boolean => {
    ws();
    if (!string()) return false;
    ws();
    if (text[i] !== ':') return false;
    i++;
    return true;
  };

  const open: ('[' | '{')[] = [];
  for (;;) {
    // A value is due.
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      ws();
      if (text[i] === (c === '{' ? '}' : ']')) i++;
      else {
        open.push(c);
        if (c === '{' && !key()) return i;
        continue;
      }
    } else if (c === '"') {
      if (!string()) return i;
    } else if (c === 't' || c === 'f' || c === 'n') {
      if (!word(c === 't' ? 'true' : c === 'f' ? 'false' : 'null')) return i;
    } else if (c === '-' || isDigit(text.charCodeAt(i))) {
      if (!number()) return i;
    } else return i;
    // A value ended: close what it ends, until a comma asks for the next one.
    for (;;) {
      ws();
      const top = open[open.length - 1];
      if (top === undefined) return i < n ? i : null;
      if (text[i] === (top === '{' ? '}' : ']')) {
        i++;
        open.pop();
        continue;
      }
      if (text[i] !== ',') return i;
      i++;
      if (top === '{' && !key()) return i;
      break;
    }
  }
}

/** `line L, column C` (1-based; the column counts UTF-16 units) of an offset in `text`. */
export function lineColumn(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let k = text.indexOf('\n'); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) {
    line++;
    start = k + 1;
  }
  return `line ${line}, column ${offset - start + 1}`;
}

/** Why `text` (which JSON.parse refused) is not JSON, by position only. */
export function jsonErrorWhere(text: string): string {
  const at = jsonErrorOffset(text);
  if (at === null) return 'position unknown';
  return at >= text.length ? `ends early at ${lineColumn(text, at)}` : `at ${lineColumn(text, at)}`;
}
