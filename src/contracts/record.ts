/** The one guard for a JSON object read from outside (a payload, a transcript line, a config file): not null, not an array. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
