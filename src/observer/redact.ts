/**
 * What of a dispatch's tool input may be kept in the spool and the ledger: ids, models, agent types, flags. Prompt and
 * description text never are (privacy rule). The decision itself still sees the whole input; only the record is cut.
 */
const TEXT_KEYS = new Set([
  'prompt',
  'description',
  'message',
  'task',
  'instructions',
  'input',
  'items',
  'content',
  'text',
  'context',
]);
const MAX_KEPT_STRING = 128;

export function redactToolInput(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (TEXT_KEYS.has(k)) continue;
    if (typeof v === 'string') {
      if (v.length <= MAX_KEPT_STRING) out[k] = v;
    } else if (typeof v === 'number' || typeof v === 'boolean' || v === null) out[k] = v;
  }
  return out;
}
