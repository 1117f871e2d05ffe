/**
 * What the converters of formats that give prices as JSON numbers share: models.dev and the harness overlay (USD per
 * 1M tokens), LiteLLM (USD per token).
 */
import * as z from 'zod/mini';
import { numberToDecimal } from '../decimal.js';

/** A price written as a JSON number: never negative. */
export const PriceNumber = z.number().check(z.nonnegative());

/** The rates models.dev and the harness overlay name alike, USD per 1M tokens. */
export const PerMillionRates = z.looseObject({
  input: PriceNumber,
  output: PriceNumber,
  cache_read: z.optional(PriceNumber),
  cache_write: z.optional(PriceNumber),
});

/** A price number as a decimal string; an absent one stays null. */
export const decimalOrNull = (n: number | undefined): string | null => (n === undefined ? null : numberToDecimal(n));
