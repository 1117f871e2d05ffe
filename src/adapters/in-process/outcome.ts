/** Brief and result markers shared by the in-process adapters (OpenCode, pi). */
import type { CompletionObservation } from '../../contracts/observation.js';

/** `Escalation from <tier>:` at the start of a brief names the tier that failed first. */
export function escalationFrom(prompt: string | null): string | null {
  const m = prompt?.match(/^\s*Escalation from ([a-z0-9_-]{1,32})\s*:/i);
  return m ? m[1]!.toLowerCase() : null;
}

/** `Result:` / `Verified:` tokens at line starts in the child's final text (≤ 32 chars, lower-cased). */
export function parseOutcome(text: string | null): CompletionObservation['outcome'] {
  const token = (label: string) => {
    const m = text?.match(new RegExp(`^\\s*${label}:\\s*([A-Za-z0-9_-]{1,32})`, 'im'));
    return m ? m[1]!.toLowerCase() : null;
  };
  const esc = text?.match(/^\s*Escalation from ([a-z0-9_-]{1,32})\s*:/im);
  return { result: token('Result'), verified: token('Verified'), escalationFrom: esc ? esc[1]!.toLowerCase() : null };
}
