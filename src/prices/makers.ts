/**
 * Which company makes a model, from its id. First-party list prices come from the maker's own provider entry
 * (models.dev hosts the same id under resellers and coding plans at other prices, README §3); a lookup without a
 * provider must not pick a reseller's row.
 */

const MAKER_BY_PREFIX: Array<[RegExp, string]> = [
  [/^claude-/, 'anthropic'],
  [/^(gpt-|chatgpt-|o\d(-|$)|codex-|text-embedding-)/, 'openai'],
  [/^(gemini-|gemma-)/, 'google'],
  [/^deepseek-/, 'deepseek'],
  [/^kimi-/, 'moonshotai'],
  [/^glm-/, 'zai'],
  [/^(qwen|qwq-|qvq-)/, 'alibaba'],
  [/^grok-/, 'xai'],
  [/^(mistral-|ministral-|magistral-|devstral-|codestral-|pixtral-|open-mistral-|open-mixtral-|voxtral-)/, 'mistral'],
];

export function makerOf(id: string): string | null {
  for (const [re, maker] of MAKER_BY_PREFIX) if (re.test(id)) return maker;
  return null;
}

/** Provider names as the sources spell them -> the maker id used in PriceRow.provider. */
const PROVIDER_ALIASES: Record<string, string> = {
  'z-ai': 'zai',
  zhipuai: 'zai',
  qwen: 'alibaba',
  'x-ai': 'xai',
  moonshot: 'moonshotai',
  mistralai: 'mistral',
};

export function canonicalProvider(name: string): string {
  const lower = name.toLowerCase();
  return PROVIDER_ALIASES[lower] ?? lower;
}

/** The model makers whose own models.dev / LiteLLM entries count as list prices. */
export const FIRST_PARTY_PROVIDERS = new Set([
  'anthropic',
  'openai',
  'google',
  'deepseek',
  'moonshotai',
  'zai',
  'alibaba',
  'xai',
  'mistral',
]);
