/** Claude Code / Anthropic usage -> tiergate Usage. Pure and Buffer-free: the hooks module bundles it. */
import type { Usage } from '../../contracts/usage.js';
import { asCount } from '../../observer/transcripts.js';
import { isRecord } from '../../contracts/record.js';

type Obj = Record<string, unknown>;

/** Claude usage -> tiergate Usage: input excludes cache; the 1h part of cache creation is priced apart. */
export function claudeUsage(u: Obj): Usage {
  const creation = asCount(u.cache_creation_input_tokens);
  const split = isRecord(u.cache_creation) ? u.cache_creation : {};
  const oneHour = Math.min(creation, asCount(split.ephemeral_1h_input_tokens));
  const details = isRecord(u.output_tokens_details) ? u.output_tokens_details : {};
  return {
    input: asCount(u.input_tokens),
    output: asCount(u.output_tokens),
    cacheRead: asCount(u.cache_read_input_tokens),
    // Claude Code 2.1.328 reported a 0/0 split with 302 created and priced all of it at the 5-minute rate (seen).
    cacheWrite5m: creation - oneHour,
    cacheWrite1h: oneHour,
    reasoning: asCount(details.thinking_tokens),
    requests: 1,
  };
}
