/** Shared helpers for the in-process adapter unit tests: fixtures, a fixed price table, the real engine. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Policy } from '../../../src/contracts/config.js';
import type { Resolution } from '../../../src/contracts/prices.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import { decide, type PriceLookup } from '../../../src/routing-engine/decide.js';

const fixtures = join(import.meta.dirname, '../../fixtures');

export function fixture<T = Record<string, any>>(harness: string, name: string): T {
  return JSON.parse(readFileSync(join(fixtures, harness, name), 'utf8')) as T;
}

/** USD per 1M, as the fake providers in the reference runs were configured. */
export const FAKE_RATES: Record<string, [string, string, string]> = {
  parent: ['3', '15', '0.3'],
  big: ['15', '75', '1.5'],
  small: ['0.25', '1.25', '0.025'],
};

export function fakeLookup(): PriceLookup {
  return {
    catalogDate: '2026-12-02',
    catalogVersion: 'test',
    resolve(name): Resolution {
      const id = name.replace(/^fake\//, '');
      const r = FAKE_RATES[id];
      if (!r) return { query: name, id: null, how: 'unknown', note: null, price: null, catalogVersion: null };
      return {
        query: name,
        id,
        how: 'exact',
        note: null,
        catalogVersion: 'test',
        price: {
          id,
          provider: 'fake',
          rates: { input: r[0], output: r[1], cacheRead: r[2], cacheWrite5m: null, cacheWrite1h: null },
          longContext: [],
          perRequestFee: null,
          reasoningRate: null,
          contextWindow: null,
          source: 'test',
        },
      };
    },
  };
}

export function policyWith(tiers: Policy['tiers']['opencode'], harness: 'opencode' | 'pi' = 'opencode'): Policy {
  return { ...DEFAULT_POLICY, tiers: { ...DEFAULT_POLICY.tiers, [harness]: tiers } };
}

export const realRoute = (policy: Policy) => (obs: Parameters<typeof decide>[0]) => decide(obs, policy, fakeLookup());
