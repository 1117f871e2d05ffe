/** Shared helpers for the Codex adapter tests: fixtures from test/fixtures/codex (recorded on codex-cli 0.169.0). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../../../../src/contracts/harness.js';
import type { PriceRow, Resolution } from '../../../../src/contracts/prices.js';
import type { PriceLookup } from '../../../../src/routing-engine/decide.js';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures/codex');
export const ROLLOUTS = join(FIXTURES, 'rollouts');

export type Fixture = { name: string; meta: Record<string, unknown>; payload: Record<string, unknown> };

export function fixture(name: string): Fixture {
  const { _meta, ...payload } = JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
  return { name, meta: _meta as Record<string, unknown>, payload };
}

export function fixtures(prefix: string): Fixture[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.json'))
    .sort()
    .map(fixture);
}

export function hookStdout(f: Fixture): string {
  return String((f.meta.hook_output_returned as { stdout?: string } | undefined)?.stdout ?? '');
}

/** USD per 1M tokens, input/output, from reference/pricing.md §6 (models.dev rows). */
const RATES: Record<string, [string, string, string]> = {
  'gpt-6-astra': ['10', '50', '1'],
  'gpt-6-sol': ['2', '10', '0.2'],
  'gpt-6-luna': ['0.1', '0.5', '0.01'],
};

export const testPrices: PriceLookup = {
  catalogDate: '2026-12-02',
  catalogVersion: 'test',
  resolve(name: string, _h: Harness): Resolution {
    const r = RATES[name];
    const price: PriceRow | null = r
      ? {
          id: name,
          provider: 'openai',
          rates: { input: r[0], output: r[1], cacheRead: r[2], cacheWrite5m: null, cacheWrite1h: null },
          longContext: [],
          perRequestFee: null,
          reasoningRate: null,
          contextWindow: null,
          source: 'test',
        }
      : null;
    return {
      query: name,
      id: r ? name : null,
      how: r ? 'exact' : 'unknown',
      note: null,
      price,
      catalogVersion: r ? 'test' : null,
    };
  },
};
