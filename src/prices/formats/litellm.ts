/**
 * LiteLLM `model_prices_and_context_window.json` -> PriceRows. Numbers in USD per token (reference/pricing.md §2.2);
 * `…_above_<N>k_tokens` fields and `tiered_pricing` are long-context tiers. LiteLLM names their bound "above", but the
 * billing rule is the provider's (long-context-rules.ts), not LiteLLM's: ccusage's "only tokens above" reading is
 * not what Anthropic or OpenAI bill.
 */
import * as z from 'zod/mini';
import type { LongContextTier, Rates } from '../../contracts/prices.js';
import { compareDecimal, numberToDecimal, shiftDecimal } from '../decimal.js';
import { tierRule, tierThreshold } from '../long-context-rules.js';
import { canonicalProvider, makerOf } from '../makers.js';
import { canonicalId } from '../normalise.js';
import { isZeroPriced, RowCollector, type ConvertOptions, type ConvertResult } from './common.js';
import { PriceNumber as Cost } from './numbers.js';

const EntrySchema = z.looseObject({
  litellm_provider: z.optional(z.string()),
  input_cost_per_token: Cost,
  output_cost_per_token: Cost,
  cache_read_input_token_cost: z.optional(Cost),
  cache_creation_input_token_cost: z.optional(Cost),
  cache_creation_input_token_cost_above_1hr: z.optional(Cost),
  output_cost_per_reasoning_token: z.optional(Cost),
  input_cost_per_request: z.optional(Cost),
  max_input_tokens: z.optional(z.int().check(z.positive())),
  tiered_pricing: z.optional(
    z.array(
      z.looseObject({
        range: z.tuple([z.number(), z.number()], z.number()),
        input_cost_per_token: Cost,
        output_cost_per_token: Cost,
        cache_read_input_token_cost: z.optional(Cost),
        cache_creation_input_token_cost: z.optional(Cost),
      }),
    ),
  ),
});
type Entry = z.infer<typeof EntrySchema>;

const perMillion = (n: number | undefined): string | null => {
  if (n === undefined) return null;
  const d = numberToDecimal(n);
  return d === null ? null : shiftDecimal(d, 6);
};

const ABOVE =
  /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)_above_(\d+)k_tokens$/;

/**
 * Which entry speaks for a model when several normalise to one id: the maker's own API first, then Bedrock's global
 * endpoint, Azure, routers, and last the regional Bedrock endpoints (priced 1.1x, kept under their own names).
 */
function rankOf(key: string, provider: string | undefined): number {
  if (/^(us|eu|apac|au|jp|ca|us-gov)\.anthropic\./.test(key)) return 4;
  if (key.startsWith('openrouter/')) return 3;
  if (key.startsWith('azure') || provider === 'azure') return 2;
  if (key.includes('anthropic.') || key.includes('/')) return 1;
  return 0;
}

function aboveTiers(e: Entry, provider: string): LongContextTier[] {
  const byThreshold = new Map<number, Partial<Record<string, number>>>();
  for (const [k, v] of Object.entries(e)) {
    const m = ABOVE.exec(k);
    if (!m || typeof v !== 'number') continue;
    const t = Number(m[2]) * 1000;
    const fields = byThreshold.get(t) ?? {};
    fields[m[1]!] = v;
    byThreshold.set(t, fields);
  }
  const tiers: LongContextTier[] = [];
  const rule = tierRule(provider);
  for (const [t, f] of byThreshold) {
    const input = perMillion(f.input_cost_per_token);
    const output = perMillion(f.output_cost_per_token);
    if (input === null && output === null) continue;
    tiers.push({
      threshold: tierThreshold(provider, t),
      ...rule,
      // LiteLLM gives only the categories that change; the rest keep the base rate.
      rates: {
        input: input ?? perMillion(e.input_cost_per_token)!,
        output: output ?? perMillion(e.output_cost_per_token)!,
        cacheRead: perMillion(f.cache_read_input_token_cost),
        cacheWrite5m: perMillion(f.cache_creation_input_token_cost),
        cacheWrite1h: null,
      },
    });
  }
  for (const band of e.tiered_pricing ?? []) {
    const start = band.range[0];
    if (!(start > 0)) continue;
    tiers.push({
      threshold: tierThreshold(provider, start),
      ...rule,
      rates: {
        input: perMillion(band.input_cost_per_token)!,
        output: perMillion(band.output_cost_per_token)!,
        cacheRead: perMillion(band.cache_read_input_token_cost),
        cacheWrite5m: perMillion(band.cache_creation_input_token_cost),
        cacheWrite1h: null,
      },
    });
  }
  return tiers.sort((a, b) => a.threshold - b.threshold);
}

export function fromLiteLLM(json: unknown, opts: ConvertOptions): ConvertResult {
  const out = new RowCollector();
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    out.note('not a LiteLLM price map (expected an object keyed by model id)');
    return out.result();
  }
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    if (key === 'sample_spec' || key === 'fallback_generalizations') continue;
    const parsed = EntrySchema.safeParse(value);
    if (!parsed.success) {
      out.skip('no per-token input/output price');
      continue;
    }
    const e = parsed.data;
    const rates: Rates = {
      input: perMillion(e.input_cost_per_token)!,
      output: perMillion(e.output_cost_per_token)!,
      cacheRead: perMillion(e.cache_read_input_token_cost),
      cacheWrite5m: perMillion(e.cache_creation_input_token_cost),
      cacheWrite1h: perMillion(e.cache_creation_input_token_cost_above_1hr),
    };
    if (isZeroPriced(rates)) {
      out.skip('zero price');
      continue;
    }
    // LiteLLM files GLM's cache write as 0 where Z.ai has no cache-write charge: keep it; 0 is a real price there.
    const id = canonicalId(key);
    const provider = makerOf(id) ?? (e.litellm_provider ? canonicalProvider(e.litellm_provider) : 'unknown');
    const reasoning = perMillion(e.output_cost_per_reasoning_token);
    const perRequest = e.input_cost_per_request === undefined ? null : numberToDecimal(e.input_cost_per_request);
    out.add(
      key,
      {
        provider,
        rates,
        longContext: aboveTiers(e, provider),
        perRequestFee: perRequest !== null && compareDecimal(perRequest, '0') > 0 ? perRequest : null,
        reasoningRate: reasoning !== null && compareDecimal(reasoning, rates.output) !== 0 ? reasoning : null,
        contextWindow: e.max_input_tokens ?? null,
        source: opts.source,
      },
      rankOf(key.toLowerCase(), e.litellm_provider),
    );
  }
  return out.result();
}
