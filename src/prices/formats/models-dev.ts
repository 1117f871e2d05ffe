/**
 * models.dev `api.json` (`{provider: {models: {id: Model}}}`) -> PriceRows. `cost.*` is USD per 1M tokens as numbers
 * (reference/pricing.md §2.3). Long context: `cost.tiers[]` (`tier.size` inclusive per models.dev's schema) or, in
 * older entries, `cost.context_over_200k` (a name reused for OpenAI's 272k bound). Only the makers' own providers
 * give list prices; resellers and coding plans list the same ids at other prices (some at 0), so they are skipped
 * unless asked for.
 */
import * as z from 'zod/mini';
import type { LongContextTier, Rates } from '../../contracts/prices.js';
import { compareDecimal } from '../decimal.js';
import { tierRule, tierThreshold } from '../long-context-rules.js';
import { FIRST_PARTY_PROVIDERS, makerOf } from '../makers.js';
import { canonicalId } from '../normalise.js';
import { isZeroPriced, RowCollector, type ConvertOptions, type ConvertResult } from './common.js';
import { decimalOrNull as dec, PerMillionRates as PriceSet, PriceNumber as Num } from './numbers.js';

const CostSchema = z.extend(PriceSet, {
  reasoning: z.optional(Num),
  tiers: z.optional(
    z.array(
      z.intersection(
        z.looseObject({
          tier: z.looseObject({ type: z.string(), size: z.int().check(z.positive()) }),
        }),
        z.partial(PriceSet),
      ),
    ),
  ),
  context_over_200k: z.optional(z.partial(PriceSet)),
});

const ModelSchema = z.looseObject({
  id: z.optional(z.string().check(z.minLength(1))),
  cost: CostSchema,
  limit: z.optional(z.looseObject({ context: z.optional(z.int().check(z.nonnegative())) })),
});

const ProviderSchema = z.looseObject({ models: z.record(z.string(), z.unknown()) });

function ratesOf(p: Partial<z.infer<typeof PriceSet>>, base: Rates): Rates {
  return {
    input: dec(p.input) ?? base.input,
    output: dec(p.output) ?? base.output,
    cacheRead: dec(p.cache_read),
    cacheWrite5m: dec(p.cache_write),
    cacheWrite1h: null,
  };
}

export interface ModelsDevOptions extends ConvertOptions {
  /** Provider ids to read; default: the model makers' own (FIRST_PARTY_PROVIDERS). */
  providers?: ReadonlySet<string>;
}

export function fromModelsDev(json: unknown, opts: ModelsDevOptions): ConvertResult {
  const out = new RowCollector();
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    out.note('not a models.dev catalog (expected an object keyed by provider id)');
    return out.result();
  }
  const wanted = opts.providers ?? FIRST_PARTY_PROVIDERS;
  let otherProviders = 0;
  for (const [providerId, providerValue] of Object.entries(json as Record<string, unknown>)) {
    if (!wanted.has(providerId)) {
      otherProviders++;
      continue;
    }
    const provider = ProviderSchema.safeParse(providerValue);
    if (!provider.success) {
      out.skip('invalid provider entry');
      continue;
    }
    for (const [modelKey, modelValue] of Object.entries(provider.data.models)) {
      const parsed = ModelSchema.safeParse(modelValue);
      if (!parsed.success) {
        out.skip('no input/output cost');
        continue;
      }
      const { cost, limit } = parsed.data;
      const base: Rates = {
        input: dec(cost.input)!,
        output: dec(cost.output)!,
        cacheRead: dec(cost.cache_read),
        cacheWrite5m: dec(cost.cache_write),
        cacheWrite1h: null,
      };
      if (isZeroPriced(base)) {
        out.skip('zero price');
        continue;
      }
      const id = canonicalId(modelKey);
      const maker = makerOf(id) ?? providerId;
      const rule = tierRule(maker);
      const longContext: LongContextTier[] = [];
      for (const t of cost.tiers ?? []) {
        if (t.tier.type !== 'context') continue;
        longContext.push({ threshold: tierThreshold(maker, t.tier.size), ...rule, rates: ratesOf(t, base) });
      }
      if (longContext.length === 0 && cost.context_over_200k) {
        // The old field carries OpenAI's 272k prices under a 200k name (README §3).
        const threshold = maker === 'openai' ? 272_000 : 200_000;
        longContext.push({ threshold, ...rule, rates: ratesOf(cost.context_over_200k, base) });
      }
      longContext.sort((a, b) => a.threshold - b.threshold);
      const reasoning = dec(cost.reasoning);
      out.add(
        modelKey,
        {
          provider: maker,
          rates: base,
          longContext,
          perRequestFee: null,
          reasoningRate: reasoning !== null && compareDecimal(reasoning, base.output) !== 0 ? reasoning : null,
          contextWindow: limit?.context && limit.context > 0 ? limit.context : null,
          source: opts.source,
        },
        maker === providerId ? 0 : 1,
      );
    }
  }
  if (otherProviders > 0) out.note(`${otherProviders} reseller/router/plan providers not read (list prices only)`);
  return out.result();
}
