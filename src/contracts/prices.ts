import * as z from 'zod/mini';
import type { Harness } from './harness.js';

/** A decimal number as a string (USD per 1,000,000 tokens). Strings keep sums exact; see src/prices/decimal.ts. */
export const DecimalSchema = z.string().check(z.regex(/^\d+(\.\d+)?$/, 'a non-negative decimal string'));

export const RatesSchema = z.object({
  input: DecimalSchema,
  output: DecimalSchema,
  /** null = the catalog gives none; the cost function then applies the documented default multiple of input. */
  cacheRead: z.nullable(DecimalSchema),
  cacheWrite5m: z.nullable(DecimalSchema),
  cacheWrite1h: z.nullable(DecimalSchema),
});
export type Rates = z.infer<typeof RatesSchema>;

export const LongContextTierSchema = z.object({
  /** Prompt tokens (input + cache read + cache write) at which the tier starts. */
  threshold: z.int().check(z.positive()),
  /** true: applies when prompt >= threshold (models.dev, OpenRouter); false: when prompt > threshold (Claude Code). */
  inclusive: z.boolean(),
  /** whole-request: every category of the request at the tier's rates; above-only: only tokens past the threshold. */
  rule: z.enum(['whole-request', 'above-only']),
  rates: RatesSchema,
});
export type LongContextTier = z.infer<typeof LongContextTierSchema>;

export const PriceRowSchema = z.object({
  /** Canonical id: lower-case, no provider prefix, no date suffix (`claude-opus-5-5`, `gpt-6-astra`). */
  id: z.string(),
  /** Model maker (anthropic, openai, google, …). */
  provider: z.string(),
  rates: RatesSchema,
  longContext: z.array(LongContextTierSchema),
  /** Fees that make a per-token comparison meaningless: the comparison reports unknown rather than guess. */
  perRequestFee: z.nullable(DecimalSchema),
  reasoningRate: z.nullable(DecimalSchema),
  contextWindow: z.nullable(z.int().check(z.positive())),
  /** Which data set this row came from (e.g. `claude-code-2.1.328`, `litellm-2026-09`, `override`). */
  source: z.string(),
});
export type PriceRow = z.infer<typeof PriceRowSchema>;

/** Aliases a harness resolves itself (Claude Code: opus -> claude-opus-5-5 on the first-party API). */
export const AliasTableSchema = z.record(z.string(), z.record(z.string(), z.string()));

export const CatalogSchema = z.object({
  format: z.literal('tiergate-catalog/1'),
  /** Identifies this catalog on every ledger row it priced, e.g. `bundled-2026-12-02` or `refresh-openrouter-<ts>`. */
  version: z.string(),
  /** ISO date of the newest data in it. */
  date: z.string(),
  source: z.string(),
  /** ISO time a refreshed catalog was fetched (absent in the bundled snapshot, whose `date` says enough). */
  fetchedAt: z.optional(z.string()),
  models: z.record(z.string(), PriceRowSchema),
  /** harness -> alias -> canonical id. */
  aliases: AliasTableSchema,
});
export type Catalog = z.infer<typeof CatalogSchema>;

export const ResolutionSchema = z.object({
  /** The name as given. */
  query: z.string(),
  /** Canonical id found, or null. */
  id: z.nullable(z.string()),
  how: z.enum(['exact', 'normalised', 'alias', 'estimated', 'unknown']),
  /** For `estimated`: the id whose price stands in, and why. */
  note: z.nullable(z.string()),
  price: z.nullable(PriceRowSchema),
  /** Catalog version that priced it (override, refresh-…, bundled-…). */
  catalogVersion: z.nullable(z.string()),
});
export type Resolution = z.infer<typeof ResolutionSchema>;

/** What the engine prices names with: the merged catalogs behind one resolver (built in src/prices/lookup.ts). */
export type PriceLookup = {
  resolve(name: string, harness: Harness): Resolution;
  catalogDate: string;
  catalogVersion: string;
};
