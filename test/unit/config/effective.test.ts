/**
 * The effective file (src/config/effective-file.ts, policy-load.ts, config/runtime.ts): what it holds prices exactly as
 * the files do; every input it stands for is detected as changed by stat (the user policy edited by hand, the snapshot
 * or the slow-path bundle replaced, the price directory written); damage is diagnosed and rebuilt; the writers write it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { run as configCommand } from '../../../src/cli/commands/config.js';
import { run as installCommand } from '../../../src/cli/commands/install.js';
import { currentInputs, effectivePath, parseEffective, readEffective } from '../../../src/config/effective-file.js';
import { loadPolicy } from '../../../src/config/load.js';
import { rebuildEffective } from '../../../src/config/policy-load.js';
import type { Harness } from '../../../src/contracts/harness.js';
import type { Catalog } from '../../../src/contracts/prices.js';
import { paths } from '../../../src/io/paths.js';
import { resetDeclaredMemo } from '../../../src/prices/declared.js';
import { loadCatalogLayers } from '../../../src/prices/load.js';
import { createPriceLookup } from '../../../src/prices/lookup.js';
import { serialiseCatalog } from '../../../src/prices/merge.js';
import { clearRuntimeCache, declareModelPrices, loadRuntime } from '../../../src/config/runtime.js';
import { runCaptured } from '../../support/cli.js';
import { bundled } from '../prices/catalog.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-effective-'));
  made.push(dir);
  const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir, TIERGATE_PRICE_REFRESH: 'off' };
  const p = paths(env);
  const writeUser = (text: string) => {
    mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(p.config, text);
  };
  const fresh = () => (clearRuntimeCache(), loadRuntime(env, null));
  const ino = () => statSync(effectivePath(env)).ino;
  const log = () => {
    try {
      return readFileSync(p.diagnostics, 'utf8');
    } catch {
      return '';
    }
  };
  return { dir, env, p, writeUser, fresh, ino, log };
}

beforeEach(() => {
  clearRuntimeCache();
  resetDeclaredMemo();
});

/** A refreshed catalog in the price directory, one model per line as the refresh writes it. */
function refreshed(sb: ReturnType<typeof sandbox>, models: Record<string, unknown>) {
  mkdirSync(sb.p.priceCacheDir, { recursive: true });
  writeFileSync(
    join(sb.p.priceCacheDir, 'test.catalog.json'),
    serialiseCatalog({
      format: 'tiergate-catalog/1',
      version: 'refresh-test',
      date: '2026-12-03',
      source: 'test',
      fetchedAt: '2026-12-03T00:00:00.000Z',
      models,
      aliases: {},
    } as Catalog),
  );
}

const NAMES = [
  ...Object.keys(bundled.models).slice(0, 60),
  'opus',
  'sonnet',
  'haiku',
  'fable',
  'claude-opus-4-6[1m]',
  'anthropic/claude-sonnet-4-5',
  'us.anthropic.claude-haiku-4-5-20251001-v1:0',
  'gpt-6.1-sol',
  'gpt-6-luna',
  'openai/gpt-6-astra',
  'fake/big',
  'my-negotiated',
  'no-such-model-anywhere',
  'x'.repeat(300),
];
const HARNESSES: Harness[] = ['claude', 'codex', 'opencode', 'pi', 'gemini', 'copilot', 'grok', 'cursor'];

describe('what the effective file holds prices as the files do', () => {
  it('every name, every harness: the same resolution, catalog version and date (overrides, refreshed, declared)', () => {
    const sb = sandbox();
    sb.writeUser(
      JSON.stringify({ claudeProvider: 'bedrock', priceOverrides: { 'my-negotiated': { input: '1', output: '2' } } }),
    );
    const astra = bundled.models['gpt-6-astra']!;
    refreshed(sb, { 'gpt-6-astra': { ...astra, rates: { ...astra.rates, input: '0.5' } } });
    declareModelPrices(sb.env, 'opencode', [{ model: 'fake/big', cost: { input: 15, output: 75 } }]);
    const policy = loadPolicy(sb.env, null).policy;
    const files = createPriceLookup(loadCatalogLayers(sb.env, policy), { claudeProvider: policy.claudeProvider });
    sb.fresh();
    const served = sb.fresh().prices;
    expect(readEffective(sb.env, currentInputs(sb.env))).not.toBeNull();
    expect(served.catalogVersion).toBe(files.catalogVersion);
    expect(served.catalogDate).toBe(files.catalogDate);
    for (const h of HARNESSES)
      for (const n of NAMES) expect(served.resolve(n, h), `${h} ${n}`).toEqual(files.resolve(n, h));
    expect(served.resolve('gpt-6-astra', 'codex').price?.rates.input).toBe('0.5');
    expect(served.resolve('my-negotiated', 'codex').price?.rates.input).toBe('1');
  });

  it('a file without key tables (as written before session 17) is read as it is, by search: same answers, not rewritten', () => {
    const sb = sandbox();
    const astra = bundled.models['gpt-6-astra']!;
    refreshed(sb, { 'gpt-6-astra': { ...astra, rates: { ...astra.rates, input: '0.5' } } });
    sb.fresh(); // the first rebuild changes the price directory's ctime (its mode made user-only): the second is final
    const served = sb.fresh().prices;
    const path = effectivePath(sb.env);
    const whole = readFileSync(path, 'utf8');
    const nl = whole.indexOf('\n');
    const { keys, ...head } = JSON.parse(whole.slice(0, nl)) as { keys: number[]; layers: number[] };
    expect(keys.length).toBe(head.layers.length);
    expect(keys.every((n) => n > 0)).toBe(true);
    const layersEnd = nl + 1 + head.layers.reduce((a, b) => a + b, 0);
    writeFileSync(path, `${JSON.stringify(head)}\n${whole.slice(nl + 1, layersEnd)}`);
    const before = sb.ino();
    const old = sb.fresh().prices;
    for (const n of NAMES) expect(old.resolve(n, 'claude'), n).toEqual(served.resolve(n, 'claude'));
    expect(old.resolve('gpt-6-astra', 'codex').price?.rates.input).toBe('0.5');
    expect(sb.ino()).toBe(before);
    expect(sb.log()).toBe('');
  });

  it('a refreshed row that is not a price row is left out when the file is written, with a diagnostic', () => {
    const sb = sandbox();
    const luna = bundled.models['gpt-6-luna']!;
    refreshed(sb, { 'gpt-6-astra': { id: 'gpt-6-astra', rates: 'free' }, 'gpt-6-luna': luna });
    const eff = rebuildEffective(sb.env);
    expect(Object.keys(eff.layers[0]!.models)).toEqual(['gpt-6-luna']);
    expect(sb.log()).toMatch(/cached catalog row invalid, ignored/);
    expect(sb.fresh().prices.resolve('gpt-6-astra', 'codex').catalogVersion).toBe(bundled.version);
  });
});

describe('an input changed after the file was written is seen by stat', () => {
  it('a fresh file is read, not rewritten', () => {
    const sb = sandbox();
    sb.fresh();
    const ino = sb.ino();
    expect(sb.fresh().policy.mode).toBe('on');
    expect(sb.ino()).toBe(ino);
  });

  it('the user policy edited in place, same size, its mtime put back: still seen (ctime, identity)', () => {
    const sb = sandbox();
    sb.writeUser('{"mode":"warn"}');
    const before = statSync(sb.p.config);
    utimesSync(sb.p.config, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    expect(sb.fresh().policy.mode).toBe('warn');
    const old = statSync(sb.p.config);
    writeFileSync(sb.p.config, '{"mode":"off" }');
    utimesSync(sb.p.config, old.atime, old.mtime);
    expect(statSync(sb.p.config).size).toBe(before.size);
    expect(sb.fresh().policy.mode).toBe('off');
  });

  it('a user policy created, then removed', () => {
    const sb = sandbox();
    expect(sb.fresh().policy.unknownPrice).toBe('allow');
    sb.writeUser(JSON.stringify({ unknownPrice: 'deny' }));
    expect(sb.fresh().policy.unknownPrice).toBe('deny');
    writeFileSync(sb.p.config, '');
    expect(sb.fresh().policy.unknownPrice).toBe('allow');
    expect(sb.fresh().policyDiagnostics[0]).toMatch(/not valid JSON/);
  });

  for (const input of ['snapshot', 'code', 'user', 'prices'] as const) {
    it(`a file whose recorded ${input} identity is not the current one is stale: rebuilt, not used`, () => {
      const sb = sandbox();
      sb.fresh();
      const path = effectivePath(sb.env);
      const text = readFileSync(path, 'utf8');
      const recorded = parseEffective(text).inputs[input];
      // The same file, saying mode "off", made from another snapshot (an upgrade), bundle (a rebuild), policy or catalogs.
      writeFileSync(
        path,
        text.replace(JSON.stringify(recorded), JSON.stringify(`${recorded}x`)).replace('"mode":"on"', '"mode":"off"'),
      );
      expect(readEffective(sb.env, currentInputs(sb.env))).toBeNull();
      expect(sb.fresh().policy.mode).toBe('on');
      expect(parseEffective(readFileSync(path, 'utf8')).inputs[input]).toBe(recorded);
      expect(sb.log()).toBe('');
    });
  }

  it('a catalog written into the price directory makes the file stale', () => {
    const sb = sandbox();
    expect(sb.fresh().prices.resolve('gpt-6-astra', 'codex').catalogVersion).toBe(bundled.version);
    refreshed(sb, { 'gpt-6-astra': bundled.models['gpt-6-astra'] });
    expect(sb.fresh().prices.resolve('gpt-6-astra', 'codex').catalogVersion).toBe('refresh-test');
  });
});

describe('a damaged file', () => {
  for (const [name, damage] of [
    ['truncated', (t: string) => t.slice(0, t.length - 500)],
    ['cut in its header', (t: string) => t.slice(0, 300)],
    ['trailing bytes', (t: string) => `${t}{}`],
    ['another format', (t: string) => t.replace('tiergate-effective/1', 'tiergate-effective/0')],
    ['empty', () => ''],
  ] as const) {
    it(`${name}: decided from the files, one diagnostic, rewritten whole`, () => {
      const sb = sandbox();
      sb.writeUser(JSON.stringify({ unknownPrice: 'deny' }));
      sb.fresh();
      const path = effectivePath(sb.env);
      const whole = readFileSync(path, 'utf8');
      writeFileSync(path, damage(whole));
      expect(sb.fresh().policy.unknownPrice).toBe('deny');
      expect(sb.log()).toMatch(/"where":"effective".*damaged, rebuilt from the files/);
      expect(sb.log().trim().split('\n')).toHaveLength(1);
      expect(readFileSync(path, 'utf8')).toBe(whole);
    });
  }

  it('read back quietly (after the slow path rewrote it, config/runtime.ts): null, and no second diagnostic', () => {
    const sb = sandbox();
    sb.fresh();
    const path = effectivePath(sb.env);
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 300));
    expect(readEffective(sb.env, currentInputs(sb.env), true)).toBeNull();
    expect(sb.log()).toBe('');
    expect(readEffective(sb.env, currentInputs(sb.env))).toBeNull();
    expect(sb.log()).toMatch(/damaged, rebuilt from the files/);
  });
});

describe('the slow path', () => {
  it('a dispatch that rebuilt the file is served from it as read back: the same policy and prices as the next one', () => {
    const sb = sandbox();
    sb.writeUser(JSON.stringify({ unknownPrice: 'deny' }));
    const first = sb.fresh();
    const ino = sb.ino();
    const next = sb.fresh();
    expect(sb.ino()).toBe(ino);
    expect(first.policy).toEqual(next.policy);
    expect(first.policyDiagnostics).toEqual(next.policyDiagnostics);
    expect(first.prices.catalogVersion).toBe(next.prices.catalogVersion);
    expect(sb.log()).toBe('');
  });
});

describe('a damaged file, diagnosed without its text', () => {
  it('a header that is not JSON: the diagnostic says so and quotes none of it', () => {
    const sb = sandbox();
    sb.writeUser(JSON.stringify({ team: { url: 'postgres://secret-host/db' } }));
    sb.fresh();
    const path = effectivePath(sb.env);
    writeFileSync(path, `x${readFileSync(path, 'utf8').slice(1)}`);
    expect(sb.fresh().policy.team.url).toBe('postgres://secret-host/db');
    expect(sb.log()).toMatch(/damaged, rebuilt from the files: not valid JSON/);
    expect(sb.log()).not.toMatch(/secret-host|format/);
  });
});

describe('the writers', () => {
  it('tiergate config check writes it from the files it checked', async () => {
    const sb = sandbox();
    sb.writeUser(JSON.stringify({ mode: 'warn' }));
    const r = await runCaptured(configCommand, ['check'], sb.env, sb.dir);
    expect(r.code).toBe(0);
    const eff = readEffective(sb.env, currentInputs(sb.env));
    expect(eff?.policy.mode).toBe('warn');
  });

  it('tiergate install writes it; a dry run writes nothing', async () => {
    const sb = sandbox();
    const env = { ...sb.env, XDG_CONFIG_HOME: join(sb.dir, '.config'), PATH: process.env.PATH ?? '' };
    const dry = await runCaptured(installCommand, ['opencode', '--dry-run'], env, sb.dir);
    expect(dry.code).toBe(0);
    expect(existsSync(effectivePath(sb.env))).toBe(false);
    const r = await runCaptured(installCommand, ['opencode'], env, sb.dir);
    expect(r.code).toBe(0);
    expect(readEffective(sb.env, currentInputs(sb.env))?.policy.mode).toBe('on');
  });

  it('a harness declaring a new price rewrites it; the same price again writes nothing', () => {
    const sb = sandbox();
    sb.fresh();
    const ino = sb.ino();
    declareModelPrices(sb.env, 'pi', [{ model: 'fake/parent', cost: { input: 3, output: 15 } }]);
    expect(sb.ino()).not.toBe(ino);
    const after = sb.ino();
    expect(readEffective(sb.env, currentInputs(sb.env))?.layers.at(-1)?.source).toBe('harness-declared prices');
    declareModelPrices(sb.env, 'pi', [{ model: 'fake/parent', cost: { input: 3, output: 15 } }]);
    expect(sb.ino()).toBe(after);
  });
});
