/**
 * Model-name normalisation: every spelling a harness, cloud or router uses for a model -> the canonical catalog id
 * (lower case, no provider prefix, no date or deployment suffix, Claude versions with dashes). Pure string work;
 * `canonicalId(canonicalId(x)) === canonicalId(x)` (tested).
 */

export interface Normalised {
  /** The canonical id. */
  id: string;
  /** What was stripped that can change the bill (fast mode, batch route, regional endpoint); shown as a note. */
  remarks: string[];
}

/** AWS Bedrock cross-region inference prefixes (`us.anthropic.claude-…`). */
const BEDROCK_REGION = /^(us|eu|apac|au|jp|ca|global|us-gov)\./;
const CONTEXT_SUFFIX = /\[\d+[km]\]$/;
const DATE_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;
/** Bedrock's `-v1:0` deployment suffix, only after a version or date (`claude-v1` is Claude 1, not a suffix). */
const BEDROCK_VERSION = /(?<=\d)-v\d+(:\d+)?$/;
const VERTEX_VERSION = /@(\d{8}|latest|default)$/;
/** OpenRouter route variants (`:batch`, `:free`, `:thinking`, `:nitro`); they change the route's price, not the model. */
const ROUTE_VARIANT = /:([a-z][a-z-]*)$/;

/**
 * The name without a trailing `[1m]`/`[2m]` context marker: Claude Code strips it before its own price lookup
 * (2.1.328), same price row. Tested by its last character first, so most names never run the pattern.
 */
export function withoutContextSuffix(name: string): string {
  return name.endsWith(']') ? name.replace(CONTEXT_SUFFIX, '') : name;
}

export function canonicalId(raw: string): string {
  return normaliseName(raw).id;
}

const isDigitAt = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
};
const digitsAt = (s: string, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) if (!isDigitAt(s, i)) return false;
  return true;
};

/** DATE_SUFFIX's test as character tests: `-YYYYMMDD` or `-YYYY-MM-DD` at the end. */
function hasDateSuffix(s: string): boolean {
  const n = s.length;
  if (n >= 9 && s[n - 9] === '-' && digitsAt(s, n - 8, n)) return true;
  return (
    n >= 11 &&
    s[n - 11] === '-' &&
    digitsAt(s, n - 10, n - 6) &&
    s[n - 6] === '-' &&
    digitsAt(s, n - 5, n - 3) &&
    s[n - 3] === '-' &&
    digitsAt(s, n - 2, n)
  );
}

/**
 * Each pattern runs only where a character test says it can match (the test is implied by the pattern, so the result
 * is the same): a name as harnesses send it (`claude-opus-4.8`, `gpt-5.4`) runs few or none of them. Each RegExp a
 * Node 20 hook runs is compiled on its first run in that process (~0.1 M instructions apiece; bench/README.md
 * session 16).
 */
export function normaliseName(raw: string): Normalised {
  const remarks: string[] = [];
  let s = raw.trim().toLowerCase();

  s = withoutContextSuffix(s);

  const variant = s.includes(':') ? ROUTE_VARIANT.exec(s) : null;
  if (variant) {
    s = s.slice(0, variant.index);
    remarks.push(
      variant[1] === 'batch' ? 'batch route: usually billed at 50% of these rates' : `route variant :${variant[1]}`,
    );
  }

  // provider/model, openrouter/vendor/model, azure/…, bedrock/…: the model is the last path segment.
  if (s.includes('/')) s = s.slice(s.lastIndexOf('/') + 1);

  if (s.includes('anthropic.') && BEDROCK_REGION.test(s)) {
    remarks.push('regional Bedrock endpoint: AWS bills 1.1x these rates');
    s = s.replace(BEDROCK_REGION, '');
  }
  if (s.startsWith('anthropic.')) s = s.slice('anthropic.'.length);
  if (s.includes('@')) s = s.replace(VERTEX_VERSION, '');
  if (s.includes('-v')) s = s.replace(BEDROCK_VERSION, '');
  if (hasDateSuffix(s)) s = s.replace(DATE_SUFFIX, '');

  if (s.endsWith('-fast')) {
    s = s.slice(0, -'-fast'.length);
    remarks.push('fast mode: billed at a multiple (2x-6x) of these rates');
  }

  if (s.startsWith('claude-')) {
    // Claude versions use dashes in Anthropic's ids and dots in OpenRouter's (claude-opus-4.8 = claude-opus-4-8):
    // /(\d)\.(?=\d)/g, each dot between two digits.
    if (s.includes('.')) {
      let out = '';
      for (let i = 0; i < s.length; i++) out += s[i] === '.' && isDigitAt(s, i - 1) && isDigitAt(s, i + 1) ? '-' : s[i];
      s = out;
    }
    // Old order for Claude 4 (`claude-4-opus-20250514`) -> `claude-opus-4`.
    if (isDigitAt(s, 'claude-'.length))
      s = s.replace(/^claude-(\d+)-(opus|sonnet|haiku|fable|mythos)(?=$|-)/, (m, major: string, fam: string) =>
        Number(major) >= 4 ? `claude-${fam}-${major}` : m,
      );
    // Anthropic's own alias for the first Claude 4 models is `-4-0` (Claude Code 2.1.328 catalog ids).
    if (s === 'claude-opus-4' || s === 'claude-sonnet-4') s = `${s}-0`;
  }
  return { id: s, remarks };
}

/**
 * Other spellings of an already-canonical id that catalogs use for the same model, tried after the id itself:
 * Claude Code calls Opus 4 `claude-opus-4-0` while LiteLLM calls it `claude-opus-4`; users write `gpt-5-4` for
 * `gpt-5.4`.
 */
export function alternateIds(id: string): string[] {
  const out: string[] = [];
  if (id.startsWith('claude-')) {
    if (/-\d+-0$/.test(id)) out.push(id.slice(0, -2));
    else if (/-(opus|sonnet|haiku)-\d+$/.test(id)) out.push(`${id}-0`);
  }
  if (id.startsWith('gpt-')) {
    const dotted = id.replace(/^(gpt-\d+)-(\d)(?=-|$)/, '$1.$2');
    if (dotted !== id) out.push(dotted);
  }
  return out;
}

export interface Shape {
  /** The id with each run of version numbers replaced by `#`: `claude-opus-#`, `gpt-#-sol`, `qwen#-max`. */
  shape: string;
  /** The version numbers of each `#`, in order: claude-opus-4-8 -> [[4, 8]], gpt-5.6-sol -> [[5, 6]]. */
  versions: number[][];
}

/**
 * Split an id into its family/variant words and its version numbers. Two ids with the same shape differ only in
 * version, so `gpt-6-luna` never shares a shape with `gpt-6-sol`, nor `gpt-5.4-mini` with `gpt-5.4`.
 */
export function shapeOf(id: string): Shape {
  const words: string[] = [];
  const versions: number[][] = [];
  let inVersion = false;
  for (const tok of id.split('-')) {
    const num = /^\d+(\.\d+)*$/.test(tok) ? tok : null;
    if (num !== null && !/^\d{5,}$/.test(tok)) {
      const parts = num.split('.').map(Number);
      if (inVersion) versions[versions.length - 1]!.push(...parts);
      else {
        versions.push(parts);
        words.push('#');
      }
      inVersion = true;
      continue;
    }
    const glued = /^([a-z]+)(\d+(?:\.\d+)*)$/.exec(tok);
    if (glued) {
      words.push(`${glued[1]}#`);
      versions.push(glued[2]!.split('.').map(Number));
      inVersion = true;
      continue;
    }
    words.push(tok);
    inVersion = false;
  }
  return { shape: words.join('-'), versions };
}

/** Lexicographic comparison of version groups, missing parts read as 0 (5 = 5.0 < 5.5). */
export function compareVersions(a: number[][], b: number[][]): number {
  const groups = Math.max(a.length, b.length);
  for (let g = 0; g < groups; g++) {
    const x = a[g] ?? [];
    const y = b[g] ?? [];
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      const d = (x[i] ?? 0) - (y[i] ?? 0);
      if (d !== 0) return d;
    }
  }
  return 0;
}
