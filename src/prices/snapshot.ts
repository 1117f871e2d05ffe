/**
 * Builds the bundled catalog from the four offline price files (scripts/price-sources/, copied from the shared
 * data set; see docs/prices.md). Pure: takes the parsed JSON, returns the Catalog, so a test can check that the
 * committed data/prices-snapshot.json is exactly what these inputs give.
 *
 * Precedence when sources disagree (README of the data set, §7):
 *   1. harness catalog (Claude Code 2.1.328 / Codex 0.169.0 binaries): what the harness itself bills;
 *   2. models.dev, makers' own providers: list prices, with 272k/200k tiers;
 *   3. LiteLLM, makers' own ids: list prices (no 272k tiers in this snapshot, hence below models.dev);
 *   4. OpenRouter routes: router prices, only for models no list source has.
 */
import type { Catalog } from '../contracts/prices.js';
import { fromHarnessCatalog } from './formats/harness-catalog.js';
import { fromLiteLLM } from './formats/litellm.js';
import { fromModelsDev } from './formats/models-dev.js';
import { fromOpenRouter } from './formats/openrouter.js';
import { mergeSources, sortKeys, type MergeReport } from './merge.js';

export interface SnapshotInputs {
  harnessCatalog: unknown;
  modelsDev: unknown;
  litellm: unknown;
  openrouter: unknown;
}

export const SOURCE_NAMES = {
  harnessCatalog: 'claude-code-2.1.328+codex-0.169.0',
  modelsDev: 'models.dev-2026-09',
  litellm: 'litellm-2026-09',
  openrouter: 'openrouter-2026-09',
} as const;

export interface SnapshotResult {
  catalog: Catalog;
  report: MergeReport;
  notes: Record<string, string[]>;
  unpriced: string[];
}

export function buildSnapshot(inputs: SnapshotInputs): SnapshotResult {
  const harness = fromHarnessCatalog(inputs.harnessCatalog, { source: SOURCE_NAMES.harnessCatalog });
  const modelsDev = fromModelsDev(inputs.modelsDev, { source: SOURCE_NAMES.modelsDev });
  const litellm = fromLiteLLM(inputs.litellm, { source: SOURCE_NAMES.litellm });
  const openrouter = fromOpenRouter(inputs.openrouter, { source: SOURCE_NAMES.openrouter });
  const { models, report } = mergeSources([
    { name: SOURCE_NAMES.harnessCatalog, rows: harness.rows, authoritativeTiers: true },
    { name: SOURCE_NAMES.modelsDev, rows: modelsDev.rows },
    { name: SOURCE_NAMES.litellm, rows: litellm.rows },
    { name: SOURCE_NAMES.openrouter, rows: openrouter.rows },
  ]);
  const extracted = (inputs.harnessCatalog as { extracted_on?: unknown })?.extracted_on;
  const date = typeof extracted === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(extracted) ? extracted : '1970-01-01';
  const catalog: Catalog = {
    format: 'tiergate-catalog/1',
    version: `bundled-${date}`,
    date,
    source: Object.values(SOURCE_NAMES).join(' > '),
    models,
    aliases: sortKeys(harness.aliases),
  };
  return {
    catalog,
    report,
    notes: {
      [SOURCE_NAMES.harnessCatalog]: harness.notes,
      [SOURCE_NAMES.modelsDev]: modelsDev.notes,
      [SOURCE_NAMES.litellm]: litellm.notes,
      [SOURCE_NAMES.openrouter]: openrouter.notes,
    },
    unpriced: harness.unpriced,
  };
}

/** File names of the inputs inside a source directory. */
export const SOURCE_FILES = {
  harnessCatalog: 'harness-catalog-2026-12.json',
  modelsDev: 'models-dev-2026-09.json',
  litellm: 'litellm-2026-09.json',
  openrouter: 'openrouter-models-2026-09.json',
} as const;

/** The inputs, each file of SOURCE_FILES given to read (which parses it): one way for the script and its test. */
export function snapshotInputs(read: (file: string) => unknown): SnapshotInputs {
  return {
    harnessCatalog: read(SOURCE_FILES.harnessCatalog),
    modelsDev: read(SOURCE_FILES.modelsDev),
    litellm: read(SOURCE_FILES.litellm),
    openrouter: read(SOURCE_FILES.openrouter),
  };
}
