/**
 * Text as the ledger stores it. Names and ids come from the model and the harness (a subagent type, an agent id, a
 * session id): any string at all. PostgreSQL refuses NUL and text that is not UTF-8 (a lone surrogate becomes such
 * bytes), and one refused value would stop every later `tiergate push` (issue 28); a value the size of a brief has no
 * place in a ledger of names. So every text value is made storable where it is written (store.ts passes each
 * statement's parameters through ledgerParams): NUL and lone surrogates become U+FFFD, and it is cut to
 * LEDGER_TEXT_MAX characters. The same rule is deterministic, so every writer of one child computes the same key.
 */
import type { SqlValue } from './driver.js';

/** Longest text value kept: a Linux path (PATH_MAX 4096) fits; nothing else a ledger holds comes close. */
export const LEDGER_TEXT_MAX = 4096;

const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const BAD = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `v` with NUL and lone surrogates replaced by U+FFFD, cut to `max` characters (never inside a surrogate pair). */
export function ledgerText(v: string, max = LEDGER_TEXT_MAX): string {
  let out = SUSPECT.test(v) ? v.replace(BAD, '\uFFFD') : v;
  if (out.length > max) {
    const cut = /[\uD800-\uDBFF]/.test(out[max - 1] ?? '') ? max - 1 : max;
    out = out.slice(0, cut);
  }
  return out;
}

/** A statement's parameters with every text value made storable (numbers, bigints and NULL as they are). */
export function ledgerParams(params: SqlValue[]): SqlValue[] {
  return params.map((p) => (typeof p === 'string' ? ledgerText(p) : p));
}
