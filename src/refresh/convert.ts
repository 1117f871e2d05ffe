/**
 * One seam between the refresh and the source-format converters (src/prices/formats/): parsed JSON in, price rows
 * out. The refresh re-validates every row it gets back, so a converter bug cannot poison the cache.
 */
import type { PriceRow } from '../contracts/prices.js';
import { fromLiteLLM } from '../prices/formats/litellm.js';
import { fromModelsDev } from '../prices/formats/models-dev.js';
import { fromOpenRouter } from '../prices/formats/openrouter.js';
import type { RefreshSource } from './settings.js';

export type Converted = { rows: PriceRow[]; skipped: number; notes: string[] };
/** `source` goes into every row's `source` field (the catalog version, e.g. `refresh-openrouter-20261202T100000Z`). */
export type Converter = (format: RefreshSource['format'], json: unknown, source: string) => Converted;

export const convertSource: Converter = (format, json, source) => {
  switch (format) {
    case 'openrouter':
      return fromOpenRouter(json, { source });
    case 'litellm':
      return fromLiteLLM(json, { source });
    case 'models.dev':
      return fromModelsDev(json, { source });
  }
};
