import * as z from 'zod/mini';

const tokens = z.int().check(z.nonnegative());

/**
 * Token usage normalised across harnesses (see reference/pricing.md §5): `input` EXCLUDES cache reads and writes,
 * `output` INCLUDES reasoning. Adapters convert (Codex input_tokens includes cached_input_tokens: subtract it).
 */
export const UsageSchema = z.object({
  input: tokens,
  output: tokens,
  cacheRead: tokens,
  cacheWrite5m: tokens,
  cacheWrite1h: tokens,
  /** Informational: already inside `output`. */
  reasoning: tokens,
  /** Number of API requests summed into this record; long-context tiers apply per request. */
  requests: z.int().check(z.positive()),
});
export type Usage = z.infer<typeof UsageSchema>;

export const emptyUsage = (): Usage => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
});
