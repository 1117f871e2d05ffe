/**
 * Reads the outcome tokens a child's final answer may carry (`Result: done`, `Verified: yes`) and the escalation
 * header a brief may carry (`Escalation from <tier>:`). Only these short tokens are kept: never the text itself.
 */
import type { Outcome } from '../contracts/observation.js';

const MAX_TOKEN = 32;
/** Answers can be long; the markers sit at the start or end of a line, so a bounded prefix/suffix is enough. */
const MAX_SCAN = 64 * 1024;

function token(text: string, label: string): string | null {
  const re = new RegExp(`^[\\s>*_#-]*${label}\\s*[:：]\\s*[*_]*([A-Za-z0-9][\\w.-]*)`, 'im');
  const m = re.exec(text);
  if (!m) return null;
  return m[1]!.toLowerCase().slice(0, MAX_TOKEN);
}

function bounded(text: string): string {
  return text.length <= MAX_SCAN ? text : `${text.slice(0, MAX_SCAN / 2)}\n${text.slice(-MAX_SCAN / 2)}`;
}

export function parseEscalation(text: string | null | undefined): string | null {
  if (!text) return null;
  const m = /Escalation from\s+([A-Za-z0-9][\w.-]*)\s*:/i.exec(bounded(text));
  return m ? m[1]!.toLowerCase().slice(0, MAX_TOKEN) : null;
}

export function parseOutcome(text: string | null | undefined): Outcome {
  if (!text) return { result: null, verified: null, escalationFrom: null };
  const t = bounded(text);
  return { result: token(t, 'Result'), verified: token(t, 'Verified'), escalationFrom: parseEscalation(t) };
}
