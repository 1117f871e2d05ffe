/**
 * Codex token counts -> tiergate's Usage (reference/pricing.md §5, seen on 0.169.0): `input_tokens` is the whole
 * prompt (total_tokens = input + output with nothing added for cache), so cached reads and cache writes are inside
 * it and are subtracted; `output_tokens` already includes reasoning (`last_usage_includes_reasoning: true`).
 */
import * as z from 'zod';
import type { Usage } from '../../contracts/usage.js';

const n = z.number().int().nonnegative().catch(0);

export const CodexTokenUsageSchema = z.looseObject({
  input_tokens: n,
  cached_input_tokens: n.optional(),
  cache_write_input_tokens: n.optional(),
  output_tokens: n,
  reasoning_output_tokens: n.optional(),
  total_tokens: n.optional(),
});
export type CodexTokenUsage = z.infer<typeof CodexTokenUsageSchema>;

export function normaliseCodexUsage(raw: CodexTokenUsage, requests: number): Usage {
  const cacheRead = raw.cached_input_tokens ?? 0;
  const cacheWrite = raw.cache_write_input_tokens ?? 0;
  return {
    input: Math.max(0, raw.input_tokens - cacheRead - cacheWrite),
    output: raw.output_tokens,
    cacheRead,
    // Codex reports one cache-write figure with no TTL: the 5-minute rate is the provider default.
    cacheWrite5m: cacheWrite,
    cacheWrite1h: 0,
    reasoning: raw.reasoning_output_tokens ?? 0,
    requests: Math.max(1, requests),
  };
}
