/**
 * OpenRouter `GET /api/v1/models` (`{data: [...]}`) or its saved form (`{models: [...]}`) -> PriceRows.
 * Prices are decimal strings in USD per token (reference/pricing.md §2.1); `overrides[].min_prompt_tokens` bands are
 * long-context tiers. Router prices can differ from the maker's list price, which is why the snapshot ranks them last.
 */
import * as z from 'zod/mini';
import { DecimalSchema, type LongContextTier, type Rates } from '../../contracts/prices.js';
import { compareDecimal, shiftDecimal } from '../decimal.js';
import { tierRule, tierThreshold } from '../long-context-rules.js';
import { canonicalProvider, makerOf } from '../makers.js';
import { canonicalId } from '../normalise.js';
import { isZeroPriced, RowCollector, type ConvertOptions, type ConvertResult } from './common.js';

const PerToken = DecimalSchema;

const PriceSet = z.looseObject({
  prompt: PerToken,
  completion: PerToken,
  input_cache_read: z.optional(PerToken),
  input_cache_write: z.optional(PerToken),
  input_cache_write_1h: z.optional(PerToken),
});

const Override = z.extend(z.partial(PriceSet), {
  min_prompt_tokens: z.optional(z.int().check(z.positive())),
  utc_days: z.optional(z.array(z.string())),
});

const ModelSchema = z.looseObject({
  id: z.string().check(z.minLength(1)),
  context_length: z.optional(z.nullable(z.int().check(z.positive()))),
  pricing: z.extend(PriceSet, {
    request: z.optional(PerToken),
    internal_reasoning: z.optional(PerToken),
    overrides: z.optional(z.array(z.unknown())),
  }),
});

const perMillion = (v: string | undefined): string | null => (v === undefined ? null : shiftDecimal(v, 6));

function ratesOf(p: z.infer<typeof PriceSet>): Rates {
  return {
    input: shiftDecimal(p.prompt, 6),
    output: shiftDecimal(p.completion, 6),
    cacheRead: perMillion(p.input_cache_read),
    cacheWrite5m: perMillion(p.input_cache_write),
    cacheWrite1h: perMillion(p.input_cache_write_1h),
  };
}

export function listOf(json: unknown): unknown[] | null {
  if (json && typeof json === 'object') {
    const o = json as Record<string, unknown>;
    if (Array.isArray(o.data)) return o.data;
    if (Array.isArray(o.models)) return o.models;
  }
  return null;
}

export function fromOpenRouter(json: unknown, opts: ConvertOptions): ConvertResult {
  const out = new RowCollector();
  const list = listOf(json);
  if (!list) {
    out.note('not an OpenRouter models list (no data[] or models[])');
    return out.result();
  }
  for (const item of list) {
    const parsed = ModelSchema.safeParse(item);
    if (!parsed.success) {
      out.skip('invalid entry');
      continue;
    }
    const m = parsed.data;
    // `~vendor/…-latest` routes float to whatever model is newest; they name no fixed price.
    if (m.id.startsWith('~')) {
      out.skip('floating ~latest route');
      continue;
    }
    // `:batch` and other variants price a service tier of a model already listed under its plain route.
    if (m.id.includes(':')) {
      out.skip('route variant (:batch, :free, …)');
      continue;
    }
    const rates = ratesOf(m.pricing);
    if (isZeroPriced(rates)) {
      out.skip('zero price');
      continue;
    }
    const vendor = m.id.includes('/') ? canonicalProvider(m.id.slice(0, m.id.indexOf('/'))) : null;
    const provider = makerOf(canonicalId(m.id)) ?? vendor ?? 'unknown';
    const rule = tierRule(provider);
    const longContext: LongContextTier[] = [];
    let timeBands = false;
    for (const raw of m.pricing.overrides ?? []) {
      const o = Override.safeParse(raw);
      if (!o.success) continue;
      if (o.data.utc_days) {
        timeBands = true;
        continue;
      }
      if (!o.data.min_prompt_tokens || o.data.prompt === undefined || o.data.completion === undefined) continue;
      longContext.push({
        threshold: tierThreshold(provider, o.data.min_prompt_tokens),
        ...rule,
        rates: ratesOf(o.data as z.infer<typeof PriceSet>),
      });
    }
    if (timeBands) out.note(`${m.id}: time-of-day price bands ignored (base rates kept)`);
    longContext.sort((a, b) => a.threshold - b.threshold);
    const request = m.pricing.request;
    const reasoning = m.pricing.internal_reasoning;
    out.add(m.id, {
      provider,
      rates,
      longContext,
      perRequestFee: request && compareDecimal(request, '0') > 0 ? shiftDecimal(request, 0) : null,
      reasoningRate:
        reasoning && compareDecimal(reasoning, '0') > 0 && compareDecimal(reasoning, m.pricing.completion) !== 0
          ? shiftDecimal(reasoning, 6)
          : null,
      contextWindow: m.context_length ?? null,
      source: opts.source,
    });
  }
  return out.result();
}
