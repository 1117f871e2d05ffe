/**
 * Every policy value is parsed and range-checked once, when its layer loads (issue 28 item 1a and item 3): a value the
 * money type (prices/decimal.ts, fixed point to 1e-18) cannot hold, or a transcript tail too small to read a usage
 * record, is invalid like any other: a diagnostic naming the key, and the layer below stands. The same for the user
 * file, an untrusted and a trusted project, and the effective file the dispatch hooks read.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyLayer, DEFAULT_POLICY, loadPolicy } from '../../../src/config/load.js';
import { rebuildEffective } from '../../../src/config/policy-load.js';
import { MIN_TAIL_BYTES, type Policy, type SharedPolicy } from '../../../src/contracts/config.js';
import { parseDecimal } from '../../../src/prices/decimal.js';

const USER_BUDGETS: Policy['budgets'] = { session: '5', day: '40', action: 'downshift', warnAt: 0.8 };
const USER = { ...DEFAULT_POLICY, budgets: USER_BUDGETS };

/** [what, layer, the key the diagnostic names, the section it leaves as it was] */
const INVALID: [string, Record<string, unknown>, string][] = [
  ['a 19-decimal session budget', { budgets: { session: '0.0000000000000000001' } }, 'budgets.session'],
  ['a 40-decimal day budget', { budgets: { day: `0.${'0'.repeat(39)}1` } }, 'budgets.day'],
  ['a budget of a billion dollars', { budgets: { month: '1000000000' } }, 'budgets.month'],
  ['a sessionTotal with a sign', { budgets: { sessionTotal: '-1' } }, 'budgets.sessionTotal'],
  ['a budget as an exponent', { budgets: { session: '1e-30' } }, 'budgets.session'],
  ['warnAt 1e-300', { budgets: { warnAt: 1e-300 } }, 'budgets.warnAt'],
  ['warnAt 1.5e-18 (19 decimals)', { budgets: { warnAt: 1.5e-18 } }, 'budgets.warnAt'],
  ['warnAt 0', { budgets: { warnAt: 0 } }, 'budgets.warnAt'],
  [
    'a 19-decimal override rate',
    { priceOverrides: { m: { input: '0.0000000000000000001', output: '1' } } },
    'priceOverrides.m.input',
  ],
  [
    'a 19-decimal cache rate',
    { priceOverrides: { m: { input: '1', output: '1', cacheRead: '1.0000000000000000001' } } },
    'priceOverrides.m.cacheRead',
  ],
  ['a tail of 1 byte', { observer: { tailBytes: 1 } }, 'observer.tailBytes'],
  ['a tail one byte under the floor', { observer: { tailBytes: MIN_TAIL_BYTES - 1 } }, 'observer.tailBytes'],
  ['a tail past 256 MiB', { observer: { tailBytes: 256 * 1024 * 1024 + 1 } }, 'observer.tailBytes'],
  ['a refresh every 1e9 hours', { refresh: { ttlHours: 1e9 } }, 'refresh.ttlHours'],
];

describe('values the money type cannot hold are invalid at load', () => {
  for (const [what, layer, key] of INVALID) {
    const section = key.split('.')[0] as keyof SharedPolicy;
    it(`${what}: invalid, the diagnostic names ${key}, the previous value stands`, () => {
      const r = applyLayer(USER, layer, 'f');
      expect(r.diagnostics).toEqual([expect.stringContaining(`f: invalid '${section}' (${key}: expected `)]);
      expect(r.policy[section]).toEqual(USER[section]);
    });
  }

  it('the limits themselves load, and every budget value that loads parses as money', () => {
    const r = applyLayer(
      USER,
      {
        budgets: {
          session: '0.000000000000000001',
          day: '999999999.5',
          month: '1.50000000000000000000',
          warnAt: 1e-18,
        },
        observer: { tailBytes: MIN_TAIL_BYTES },
        priceOverrides: { m: { input: '0.000000000000000001', output: '2', cacheWrite1h: null } },
      },
      'f',
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.policy.observer.tailBytes).toBe(65536);
    for (const v of [r.policy.budgets.session, r.policy.budgets.day, r.policy.budgets.month])
      expect(() => parseDecimal(v!)).not.toThrow();
    expect(r.policy.budgets.warnAt).toBe(1e-18);
  });
});

function sandbox(user: unknown, project: unknown, trust = false) {
  const home = mkdtempSync(join(tmpdir(), 'tg-money-'));
  const repo = join(home, 'repo');
  mkdirSync(repo);
  mkdirSync(join(home, 'config'), { recursive: true });
  const u = trust ? { ...(user as object), trustedProjects: [repo] } : user;
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify(u));
  writeFileSync(join(repo, '.tiergate.json'), JSON.stringify(project));
  return { env: { TIERGATE_HOME: home, TIERGATE_PRICE_REFRESH: 'off' }, repo };
}

describe('every layer', () => {
  const user = { budgets: { session: '5', warnAt: 0.8 }, observer: { tailBytes: 1024 * 1024 } };
  for (const trust of [false, true]) {
    const who = trust ? 'a trusted project' : 'an untrusted project';
    it(`${who}: a 19-decimal session budget and warnAt 1e-300 leave the user's budgets, named in the diagnostic`, () => {
      const sb = sandbox(user, { budgets: { session: '0.0000000000000000001', warnAt: 1e-300 } }, trust);
      const r = loadPolicy(sb.env, sb.repo);
      expect(r.policy.budgets).toEqual({ session: '5', action: 'downshift', warnAt: 0.8 });
      expect(r.diagnostics).toEqual([
        expect.stringMatching(/\.tiergate\.json: invalid 'budgets' \(budgets\.session: /),
      ]);
      expect(r.project?.effects).toEqual([{ key: 'budgets', applied: false, why: 'invalid' }]);
    });

    it(`${who}: tailBytes 1 is rejected with a diagnostic and the user's tail stands`, () => {
      const sb = sandbox(user, { observer: { tailBytes: 1 } }, trust);
      const r = loadPolicy(sb.env, sb.repo);
      expect(r.policy.observer.tailBytes).toBe(1024 * 1024);
      expect(r.diagnostics).toEqual([
        expect.stringMatching(/\.tiergate\.json: invalid 'observer' \(observer\.tailBytes: expected number >= 65536\)/),
      ]);
    });
  }

  it('the user file: the hostile values are diagnosed and the defaults stand', () => {
    const sb = sandbox({ budgets: { day: '0.0000000000000000001' }, observer: { tailBytes: 1 } }, {});
    const r = loadPolicy(sb.env, null);
    expect(r.policy.budgets).toEqual(DEFAULT_POLICY.budgets);
    expect(r.policy.observer).toEqual(DEFAULT_POLICY.observer);
    expect(r.diagnostics).toHaveLength(2);
  });

  it('the effective file the dispatch hooks read holds only checked values (the diagnostics travel with it)', () => {
    const sb = sandbox(
      { budgets: { session: '3', warnAt: 1e-300 }, priceOverrides: { m: { input: '1e-30', output: '1' } } },
      {},
    );
    const eff = rebuildEffective(sb.env);
    expect(eff.policy.budgets).toEqual(DEFAULT_POLICY.budgets);
    expect(eff.policy.priceOverrides).toEqual({});
    expect(eff.diagnostics.join('\n')).toMatch(/budgets\.warnAt: /);
    expect(eff.diagnostics.join('\n')).toMatch(/priceOverrides\.m\.input: /);
  });
});

describe('a project rule that cannot compare', () => {
  it("keeps the user's section, with a diagnostic, instead of throwing (a user policy from before these checks)", () => {
    // The effective file is read without zod (effective-file.ts): one written by an older tiergate may hold a value
    // the money type cannot compare. The project's valid budget is judged against it, and the judge throws.
    const old = { ...DEFAULT_POLICY, budgets: { ...USER_BUDGETS, session: '0.0000000000000000001' } } as Policy;
    const r = applyLayer(old, { budgets: { session: '1' }, mode: 'on' }, 'p', { trusted: false, userFile: 'u' });
    expect(r.policy.budgets).toBe(old.budgets);
    expect(r.diagnostics).toEqual(["p: 'budgets' could not be judged (Error); kept the previous value"]);
    expect(r.effects).toContainEqual({ key: 'budgets', applied: false, why: 'could not be judged' });
    expect(r.effects).toContainEqual({ key: 'mode', applied: true, why: "same as the user's" });
  });
});
