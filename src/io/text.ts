/** Text helpers every reader of a user's or a harness's file shares. Pure. */

/**
 * FNV-1a (32 bits) of a string's UTF-16 code units: names a file after a value (not a security hash). The multiply by
 * the FNV prime (2^24 + 2^8 + 0x93) is written as shifts and adds (int32 wrap-around, made unsigned at the end): the
 * same value, at half the instructions of `Math.imul` a character in a Node 20 hook's interpreter, where Gemini's
 * dispatch hashes the whole subagent prompt (3,000 characters: 6.9 -> 3.1 M; bench/README.md "Session 17: the Gemini
 * dispatch"). Parenthesised: dist/hook.cjs calls it on every hook, and V8 compiles it with that script's top level
 * (io/code-cache-file.ts).
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const fnv1a32 = (function fnv1a32(s: string): number {
  let h = 0x811c9dc5 | 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    h ^= s.charCodeAt(i);
    h += (h << 1) + (h << 4) + (h << 7) + (h << 8) + (h << 24);
  }
  return h >>> 0;
});

/** fnv1a32 as 8 hex digits. */
export const fnv1a = (s: string): string => fnv1a32(s).toString(16).padStart(8, '0');

/** The text without a leading byte order mark (editors on Windows write one; JSON.parse refuses it). */
export const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/**
 * The text less its trailing slashes (`/\/+$/`): a string loop, not a RegExp, which a Node 20 hook compiles on its
 * first run in each process (bench/README.md session 16).
 */
export function withoutTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 47) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** A path less its trailing slashes, a path of one character (`/`) kept as it is. */
export const trimSlash = (p: string): string => (p.length > 1 ? withoutTrailingSlashes(p) : p);
