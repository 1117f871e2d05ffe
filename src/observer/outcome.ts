/**
 * Outcome tokens from a child's final text: `Result: <token>`, `Verified: <token>` and an `Escalation from <tier>:`
 * header. Only the last 4 KiB of the text is looked at, and only the tokens leave this module: the text itself is
 * never stored, logged or returned.
 */
import type { Outcome } from '../contracts/observation.js';

export const OUTCOME_TAIL_BYTES = 4096;
const TOKEN = '([A-Za-z0-9][A-Za-z0-9_.-]{0,31})';
// Markdown decorations a model puts around a label: bullets, quotes, bold/italic, code ticks.
const DECOR = '[\\s>*_`#-]*';
const RESULT = new RegExp(`^${DECOR}result${DECOR}:${DECOR}${TOKEN}`, 'gim');
const VERIFIED = new RegExp(`^${DECOR}verified${DECOR}:${DECOR}${TOKEN}`, 'gim');
const ESCALATION = new RegExp(`^${DECOR}escalation\\s+from\\s+${DECOR}${TOKEN}${DECOR}:`, 'gim');

/**
 * The last `maxBytes` bytes of text (UTF-8), cut on a character boundary. TextEncoder rather than Buffer: Claude Code's
 * hooks module runtime (2.1.328) has no Buffer, and the module bundles this file.
 */
export function tailText(text: string, maxBytes = OUTCOME_TAIL_BYTES): string {
  // A UTF-8 character is at most 4 bytes: no need to encode more than 4 × maxBytes characters.
  const chars = text.length > maxBytes * 4 ? text.slice(-maxBytes * 4) : text;
  const buf = new TextEncoder().encode(chars);
  if (buf.length <= maxBytes) return chars;
  let start = buf.length - maxBytes;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return new TextDecoder().decode(buf.subarray(start));
}

/**
 * Whether `text` can match a label's pattern at all. The patterns are case-insensitive, and V8 builds the case tables of
 * an `i` pattern on its first use, ~0.3 ms of a hook process (bench/README.md, "Session 4"), while most texts carry no
 * label. Exact: without the `u` flag an `i` pattern matches an ASCII letter only as itself in either case.
 */
const mentions = (text: string, label: string): boolean => text.toLowerCase().includes(label);

function lastToken(re: RegExp, text: string): string | null {
  let found: string | null = null;
  for (const m of text.matchAll(re)) found = m[1]!.toLowerCase().replace(/[.]+$/, '');
  return found || null;
}

/** The first header wins for escalation: it sits at the top of a brief. */
function firstToken(re: RegExp, text: string): string | null {
  for (const m of text.matchAll(re)) return m[1]!.toLowerCase();
  return null;
}

export function extractOutcome(finalText: string | null | undefined): Outcome {
  if (typeof finalText !== 'string' || finalText.length === 0)
    return { result: null, verified: null, escalationFrom: null };
  const tail = tailText(finalText);
  return {
    result: mentions(tail, 'result') ? lastToken(RESULT, tail) : null,
    verified: mentions(tail, 'verified') ? lastToken(VERIFIED, tail) : null,
    escalationFrom: mentions(tail, 'escalation') ? firstToken(ESCALATION, tail) : null,
  };
}

/** `Escalation from <tier>:` at the head of a dispatch brief (briefs are read from the start, capped the same way). */
export function extractEscalation(brief: string | null | undefined): string | null {
  if (typeof brief !== 'string' || brief.length === 0) return null;
  const head = brief.slice(0, OUTCOME_TAIL_BYTES);
  return mentions(head, 'escalation') ? firstToken(ESCALATION, head) : null;
}
