/** Text helpers every reader of a user's or a harness's file shares. Pure. */

/**
 * FNV-1a (32 bits) of a string's UTF-16 code units: names a file after a value (not a security hash). Parenthesised:
 * dist/hook.cjs calls it on every hook, and V8 compiles it with that script's top level (io/code-cache-file.ts).
 */
// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const fnv1a32 = (function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
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
