/**
 * The harness overlay (prices read from the Claude Code 2.1.328 and Codex 0.169.0 binaries, USD per 1M tokens) ->
 * PriceRows plus the harnesses' alias tables. Claude Code resolves `opus`/`sonnet`/`haiku`/`fable` differently per
 * provider (reference/pricing.md §2.4), so one alias table is emitted per provider: `claude` (first-party API) and
 * `claude@bedrock`, `claude@vertex`, `claude@foundry`, `claude@gateway`, ….
 */
import * as z from 'zod/mini';
import type { LongContextTier, Rates } from '../../contracts/prices.js';
import { CLAUDE_PROVIDERS, claudeAliasTable } from '../../descriptors/claude.js';
import { tierRule, tierThreshold } from '../long-context-rules.js';
import { makerOf } from '../makers.js';
import { canonicalId } from '../normalise.js';
import { isZeroPriced, RowCollector, type ConvertOptions, type ConvertResult } from './common.js';
import { decimalOrNull as dec, PerMillionRates, PriceNumber as Num } from './numbers.js';

const PriceSchema = z.extend(PerMillionRates, {
  cache_write_5m: z.optional(Num),
  cache_write_1h: z.optional(Num),
});

const ModelSchema = z.looseObject({
  provider: z.string(),
  price: z.nullable(PriceSchema),
  context_window: z.optional(z.nullable(z.int().check(z.positive()))),
  long_context: z.optional(
    z.nullable(z.looseObject({ threshold_tokens: z.int().check(z.positive()), price: PriceSchema })),
  ),
});

const AliasSchema = z.looseObject({
  first_party: z.string(),
  per_provider: z.optional(z.record(z.string(), z.string())),
});

const CatalogSchema = z.looseObject({
  models: z.record(z.string(), z.unknown()),
  harnesses: z.optional(
    z.looseObject({
      'claude-code': z.optional(
        z.looseObject({
          aliases: z.record(z.string(), AliasSchema),
          best: z.optional(z.string()),
        }),
      ),
    }),
  ),
});

function ratesOf(p: z.infer<typeof PriceSchema>): Rates {
  return {
    input: dec(p.input)!,
    output: dec(p.output)!,
    cacheRead: dec(p.cache_read),
    cacheWrite5m: dec(p.cache_write_5m ?? p.cache_write),
    cacheWrite1h: dec(p.cache_write_1h),
  };
}

export interface HarnessCatalogResult extends ConvertResult {
  /** alias table name -> alias -> canonical id (the Catalog `aliases` field). */
  aliases: Record<string, Record<string, string>>;
  /** Models the harnesses know but no binary prices (e.g. gpt-6.1-sol): listed so reports can say so. */
  unpriced: string[];
}

/** Claude Code providers the policy can name (descriptors/claude.ts), plus the ones only the catalog lists. */
export const CATALOG_PROVIDERS = [...CLAUDE_PROVIDERS, 'mantle', 'anthropic_aws'] as const;

export function fromHarnessCatalog(json: unknown, opts: ConvertOptions): HarnessCatalogResult {
  const out = new RowCollector();
  const parsed = CatalogSchema.safeParse(json);
  if (!parsed.success) {
    out.note('not a harness price overlay (expected models{} and harnesses{})');
    return { ...out.result(), aliases: {}, unpriced: [] };
  }
  const unpriced: string[] = [];
  for (const [key, value] of Object.entries(parsed.data.models)) {
    const m = ModelSchema.safeParse(value);
    if (!m.success) {
      out.skip('invalid model entry');
      continue;
    }
    if (!m.data.price) {
      unpriced.push(canonicalId(key));
      out.skip('no price in any binary');
      continue;
    }
    const rates = ratesOf(m.data.price);
    if (isZeroPriced(rates)) {
      out.skip('zero price');
      continue;
    }
    const provider = makerOf(canonicalId(key)) ?? m.data.provider;
    const longContext: LongContextTier[] = m.data.long_context
      ? [
          {
            threshold: tierThreshold(provider, m.data.long_context.threshold_tokens),
            ...tierRule(provider),
            rates: ratesOf(m.data.long_context.price),
          },
        ]
      : [];
    out.add(key, {
      provider,
      rates,
      longContext,
      perRequestFee: null,
      reasoningRate: null,
      contextWindow: m.data.context_window ?? null,
      source: opts.source,
    });
  }

  const aliases: Record<string, Record<string, string>> = {};
  const claude = parsed.data.harnesses?.['claude-code'];
  if (claude) {
    for (const provider of CATALOG_PROVIDERS) {
      const table: Record<string, string> = {};
      for (const [alias, a] of Object.entries(claude.aliases)) {
        table[alias] = canonicalId(a.per_provider?.[provider] ?? a.first_party);
      }
      // `best` names the provider's default for the best slot: the alias it points at (catalog: best = "opus").
      if (claude.best && table[claude.best]) table.best = table[claude.best]!;
      // `opusplan` runs Sonnet except in plan mode (Opus): priced as its everyday model, Sonnet (2.1.328 notes).
      if (table.sonnet) table.opusplan = table.sonnet;
      aliases[claudeAliasTable(provider)] = table;
    }
  }
  const result = out.result();
  if (unpriced.length) result.notes.push(`known to a harness but unpriced: ${unpriced.join(', ')}`);
  return { ...result, aliases, unpriced };
}
