/**
 * Which alias tables a harness's model names resolve through is its descriptor's (HarnessDescriptor.priceAliases), not
 * a harness name in the lookup: a new harness with a table of its own in the catalog only needs the registry entry.
 */
import { describe, expect, it } from 'vitest';
import { DESCRIPTORS } from '../../../src/descriptors/index.js';
import type { Harness } from '../../../src/contracts/harness.js';
import { createPriceLookup } from '../../../src/prices/lookup.js';
import { bundled } from './catalog.js';

const NEW = 'newharness' as Harness;
const withTable = { ...bundled, aliases: { ...bundled.aliases, 'new-cli': { big: 'claude-opus-5-5' } } };

describe('alias tables from the registry', () => {
  it("a new harness's descriptor names its tables and the words for a hit", () => {
    const registry = {
      ...DESCRIPTORS,
      [NEW]: { priceAliases: () => ({ tables: ['new-cli'], why: 'New CLI alias' }) },
    };
    const r = createPriceLookup([withTable], { claudeProvider: 'anthropic' }, registry).resolve('big', NEW);
    expect({ id: r.id, how: r.how, note: r.note }).toEqual({
      id: 'claude-opus-5-5',
      how: 'alias',
      note: 'big -> claude-opus-5-5 (New CLI alias)',
    });
    // Without the entry its name finds no table (the default is the table named by its id, which has none).
    expect(createPriceLookup([withTable], { claudeProvider: 'anthropic' }).resolve('big', NEW).how).toBe('unknown');
    // Another harness does not see the table.
    expect(createPriceLookup([withTable], { claudeProvider: 'anthropic' }, registry).resolve('big', 'codex').how).toBe(
      'unknown',
    );
  });

  it("Claude Code's tables are its descriptor's: the provider's, then the first-party one; overrides first", () => {
    expect(DESCRIPTORS.claude.priceAliases!({ claudeProvider: 'bedrock' })).toEqual({
      tables: ['claude@bedrock', 'claude'],
      why: 'Claude Code alias on bedrock',
    });
    expect(DESCRIPTORS.claude.priceAliases!({ claudeProvider: 'anthropic' }).tables).toEqual(['claude']);
    // A registry whose Claude entry has no priceAliases: only the table named by its id, with the generic words.
    const bare = { ...DESCRIPTORS, claude: {} };
    expect(createPriceLookup([bundled], { claudeProvider: 'bedrock' }, bare).resolve('opus', 'claude').note).toBe(
      'opus -> claude-opus-5-5 (claude alias)',
    );
    expect(createPriceLookup([bundled], { claudeProvider: 'anthropic' }).resolve('opus', 'claude').note).toBe(
      'opus -> claude-opus-5-5 (Claude Code alias on anthropic)',
    );
  });
});
