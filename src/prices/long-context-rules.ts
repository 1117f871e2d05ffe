/**
 * How each provider bills a long request (reference/pricing.md §3). The catalogs store only a threshold and the
 * higher prices; whether the tier covers the whole request or only the tokens above it, and whether the bound is
 * `>=` or `>`, is a property of the provider, so it is encoded here once and every format converter asks.
 */
import type { LongContextTier } from '../contracts/prices.js';

export type TierRule = Pick<LongContextTier, 'rule' | 'inclusive'>;

/**
 * Providers whose published rule is "more than N prompt tokens -> the whole request at the higher rates":
 * Anthropic (Claude Code 2.1.328 `dK()`: input + cache read + cache creation > threshold, every category switches),
 * OpenAI ("input > 272K: the entire request is billed at 2x input and cache, 1.5x output"), Google Gemini Pro
 * (prompts over 200K), xAI Grok (input > 200K switches both input and output).
 */
const STRICT_WHOLE_REQUEST = new Set(['anthropic', 'openai', 'google', 'xai']);

/**
 * The rule for a tier of `provider` as stored by a source whose own bound is inclusive (models.dev `tier.size`,
 * OpenRouter `min_prompt_tokens`: "meet or exceed"). Providers without a documented rule (Qwen, GLM, …) keep the
 * source's inclusive bound and whole-request billing, which is what OpenRouter says its bands do.
 */
export function tierRule(provider: string): TierRule {
  if (STRICT_WHOLE_REQUEST.has(provider)) return { rule: 'whole-request', inclusive: false };
  return { rule: 'whole-request', inclusive: true };
}

/**
 * Some models.dev entries encode a strict `> 272000` as `size: 272001` (README §6); for a strict-rule provider that is
 * the same bound as 272000, so fold it back and every source agrees on the number shown to users.
 */
export function tierThreshold(provider: string, size: number): number {
  if (STRICT_WHOLE_REQUEST.has(provider) && size % 1000 === 1) return size - 1;
  return size;
}
