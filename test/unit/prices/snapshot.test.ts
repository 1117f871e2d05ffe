import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogSchema } from '../../../src/contracts/prices.js';
import { serialiseCatalog } from '../../../src/prices/merge.js';
import { buildSnapshot, snapshotInputs } from '../../../src/prices/snapshot.js';
import { ROOT, SNAPSHOT_PATH } from './catalog.js';

const read = (f: string): unknown => JSON.parse(readFileSync(join(ROOT, 'scripts/price-sources', f), 'utf8'));

describe('bundled price snapshot', () => {
  const built = buildSnapshot(snapshotInputs(read));
  const committed = readFileSync(SNAPSHOT_PATH, 'utf8');

  it('is exactly what `npm run prices:snapshot` generates from scripts/price-sources', () => {
    expect(serialiseCatalog(built.catalog)).toBe(committed);
  });

  it('is a valid catalog, dated, versioned and compact', () => {
    const c = CatalogSchema.parse(JSON.parse(committed));
    expect(c.version).toBe('bundled-2026-12-02');
    expect(c.date).toBe('2026-12-02');
    expect(statSync(SNAPSHOT_PATH).size).toBeLessThan(300 * 1024);
    expect(Object.keys(c.models).length).toBeGreaterThan(300);
    for (const [key, row] of Object.entries(c.models)) {
      expect(row.id, key).toBe(key);
      expect(row.source, key).toMatch(/^(claude-code|models\.dev|litellm|openrouter)/);
    }
  });

  it('applies the documented precedence: harness > models.dev > LiteLLM > OpenRouter', () => {
    const m = built.catalog.models;
    expect(m['claude-sonnet-4-5']!.source).toMatch(/^claude-code/);
    // Claude Code bills Sonnet 4.5 flat; LiteLLM and OpenRouter have a 200k surcharge (README §7).
    expect(m['claude-sonnet-4-5']!.longContext).toEqual([]);
    // gpt-5.6-sol: 4/20 in the list sources, 2/10 on OpenRouter.
    expect(m['gpt-5.6-sol']!.rates.input).toBe('4');
    // glm-5.1: Z.ai 1.4 vs OpenRouter 0.966.
    expect(m['glm-5.1']!.rates.input).toBe('1.4');
    expect(m['glm-5.1']!.source).toMatch(/^models\.dev/);
    // Only OpenRouter has kimi-k2 under the maker's name.
    expect(m['kimi-k2']!.source).toMatch(/^openrouter/);
    // LiteLLM has no 272k fields; its gpt-6-astra-pro takes the tier of a same-priced lower source.
    expect(m['gpt-6-astra-pro']!.longContext[0]).toMatchObject({ threshold: 272000, inclusive: false });
  });

  it("carries Claude Code's alias tables per provider", () => {
    const a = built.catalog.aliases;
    expect(a.claude).toMatchObject({
      opus: 'claude-opus-5-5',
      sonnet: 'claude-sonnet-5-5',
      haiku: 'claude-haiku-5-5',
      fable: 'claude-fable-5-2',
    });
    expect(a['claude@foundry']!.opus).toBe('claude-opus-4-6');
    expect(a['claude@gateway']).toMatchObject({
      opus: 'claude-opus-4-7',
      sonnet: 'claude-sonnet-4-6',
      fable: 'claude-fable-5',
    });
    expect(a['claude@bedrock']).toMatchObject({ sonnet: 'claude-sonnet-4-5', haiku: 'claude-haiku-4-5' });
    expect(a['claude@vertex']!.haiku).toBe('claude-haiku-4-5');
  });

  it('prices nothing at $0 and leaves unpriced harness models out', () => {
    for (const row of Object.values(built.catalog.models)) {
      expect(row.rates.input === '0' && row.rates.output === '0', row.id).toBe(false);
    }
    expect(built.unpriced).toEqual(expect.arrayContaining(['gpt-6.1-sol', 'gpt-6.1-terra', 'codex-auto-review']));
    expect(built.catalog.models['gpt-6.1-sol']).toBeUndefined();
  });
});
