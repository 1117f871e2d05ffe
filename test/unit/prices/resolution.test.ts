import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../../src/contracts/harness.js';
import { createPriceLookup } from '../../../src/prices/lookup.js';
import type { ClaudeProvider } from '../../../src/descriptors/claude.js';
import { compareDecimal } from '../../../src/prices/decimal.js';
import { bundled, ROOT } from './catalog.js';

interface Case {
  name: string;
  harness: Harness;
  provider?: ClaudeProvider;
  from: string;
  id: string | null;
  how: string;
  input: string | null;
}
const cases: Case[] = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/prices/model-ids.json'), 'utf8')).cases;

const lookups = new Map<ClaudeProvider, ReturnType<typeof createPriceLookup>>();
const lookupFor = (p: ClaudeProvider = 'anthropic') => {
  if (!lookups.has(p)) lookups.set(p, createPriceLookup([bundled], { claudeProvider: p }));
  return lookups.get(p)!;
};

describe('name resolution against the bundled snapshot', () => {
  it('covers at least 60 real model names', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases.map((c) => [`${c.name} (${c.harness}${c.provider ? `@${c.provider}` : ''})`, c] as const))(
    '%s',
    (_, c) => {
      const r = lookupFor(c.provider).resolve(c.name, c.harness);
      expect({ id: r.id, how: r.how }).toEqual({ id: c.id, how: c.how });
      if (c.input === null) {
        // Unknown is unknown: never a $0 row.
        expect(r.price).toBeNull();
      } else {
        expect(r.price).not.toBeNull();
        expect(compareDecimal(r.price!.rates.input, c.input)).toBe(0);
        expect(r.catalogVersion).toBe(bundled.version);
      }
    },
  );

  it('never prices claude-opus-4-8 like Opus 4 ($15/$75), in any spelling', () => {
    for (const n of [
      'claude-opus-4-8',
      'claude-opus-4.8',
      'anthropic/claude-opus-4.8',
      'global.anthropic.claude-opus-4-8',
      'claude-opus-4-8-20260101',
    ]) {
      const r = lookupFor().resolve(n, 'claude');
      expect(r.price?.rates.output, n).toBe('25');
    }
  });

  it('explains an estimate and notes what normalisation dropped', () => {
    const est = lookupFor().resolve('gpt-6.1-sol', 'codex');
    expect(est.note).toMatch(/gpt-6-sol/);
    expect(lookupFor().resolve('claude-opus-5-5-fast', 'claude').note).toMatch(/fast mode/);
    expect(lookupFor().resolve('us.anthropic.claude-haiku-5-5', 'claude').note).toMatch(/1\.1x/);
    expect(lookupFor().resolve('opus', 'claude').note).toMatch(/opus -> claude-opus-5-5/);
  });

  it('applies Claude aliases only for the claude harness', () => {
    expect(lookupFor().resolve('opus', 'codex').how).toBe('unknown');
    expect(lookupFor().resolve('opus', 'opencode').how).toBe('unknown');
  });

  it('honours ANTHROPIC_DEFAULT_*_MODEL overrides of an alias', () => {
    const l = createPriceLookup([bundled], {
      claudeProvider: 'anthropic',
      claudeAliasOverrides: { opus: 'claude-opus-4-1' },
    });
    const r = l.resolve('opus', 'claude');
    expect(r.id).toBe('claude-opus-4-1');
    expect(r.price?.rates.input).toBe('15');
  });

  it('lets the first layer that knows a model win, and says which layer', () => {
    const override = {
      ...bundled,
      version: 'override',
      date: '',
      aliases: {},
      models: {
        'claude-opus-5-5': {
          ...bundled.models['claude-opus-5-5']!,
          rates: { ...bundled.models['claude-opus-5-5']!.rates, input: '3' },
          source: 'override',
        },
      },
    };
    const l = createPriceLookup([override, bundled], { claudeProvider: 'anthropic' });
    const viaAlias = l.resolve('opus', 'claude');
    expect(viaAlias.price?.rates.input).toBe('3');
    expect(viaAlias.catalogVersion).toBe('override');
    expect(l.resolve('claude-sonnet-5-5', 'claude').catalogVersion).toBe(bundled.version);
    expect(l.catalogDate).toBe(bundled.date);
    expect(l.catalogVersion).toBe(`override+${bundled.version}`);
  });

  it('treats empty, oversized and prototype-ish names as unknown', () => {
    for (const n of ['', '   ', 'x'.repeat(10_000), '__proto__', 'constructor', 'toString', '/', '[1m]']) {
      expect(lookupFor().resolve(n, 'claude')).toMatchObject({ how: 'unknown', price: null });
    }
  });

  it('memoises per name and harness', () => {
    const l = createPriceLookup([bundled], { claudeProvider: 'anthropic' });
    expect(l.resolve('opus', 'claude')).toBe(l.resolve('opus', 'claude'));
  });
});
