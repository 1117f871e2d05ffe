import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentInputs, readEffective } from '../../../src/config/effective-file.js';
import { CatalogSchema } from '../../../src/contracts/prices.js';
import { paths } from '../../../src/io/paths.js';
import { loadCatalogLayers } from '../../../src/prices/load.js';
import { createPriceLookup } from '../../../src/prices/lookup.js';
import { convertSource } from '../../../src/refresh/convert.js';
import { acquireLock, releaseLock } from '../../../src/refresh/lock.js';
import { catalogPath, runRefresh, type RefreshOptions } from '../../../src/refresh/run.js';
import type { RefreshConfig, RefreshSource } from '../../../src/refresh/settings.js';
import { readStatus } from '../../../src/refresh/status.js';
import { PriceServer, json, makeCert, type Tls } from './support/server.js';

const FIXTURE = readFileSync(join(import.meta.dirname, '../../fixtures/prices/openrouter-api-models.json'), 'utf8');
const GOOD_MODELS = (JSON.parse(FIXTURE) as { data: Array<{ id: string }> }).data;
const H = 3_600_000;

let tls: Tls;
let srv: PriceServer;
let other: PriceServer;

beforeAll(async () => {
  tls = makeCert();
  srv = await new PriceServer(tls).start();
  other = await new PriceServer(tls).start();
  srv.routes.set('/good', json(FIXTURE));
  srv.routes.set('/good-2', json(FIXTURE));
  // A model no bundled snapshot prices (reference/pricing.md §8: gpt-6.1-sol is in no offline data).
  srv.routes.set(
    '/with-new-model',
    json({
      data: [
        ...GOOD_MODELS,
        {
          id: 'openai/gpt-6.1-sol',
          canonical_slug: 'openai/gpt-6.1-sol',
          name: 'OpenAI: GPT-6.1 Sol',
          created: 1790000000,
          pricing: { prompt: '0.000003', completion: '0.000018', input_cache_read: '0.0000003' },
        },
      ],
    }),
  );
  srv.routes.set('/small', json({ data: GOOD_MODELS.slice(0, 20) }));
  srv.routes.set('/slow', async (_q, res, s) => {
    await s.hold();
    res.end();
  });
  srv.routes.set('/huge', (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"data":[${'{"id":"x"},'.repeat(50_000)}`);
    res.end('{"id":"y"}]}');
  });
  srv.routes.set('/truncated', (_q, res) => {
    res.writeHead(200, { 'content-length': String(Buffer.byteLength(FIXTURE)) });
    res.write(FIXTURE.slice(0, 4000));
    setTimeout(() => res.destroy(), 20);
  });
  srv.routes.set('/malformed', json('{"data": [ {"id": "openai/gpt-6-astra", "pricing": '));
  srv.routes.set('/wrong-schema', json({ models_v2: [{ name: 'a', price: 1 }] }));
  srv.routes.set('/wrong-rows', json({ data: [{ id: 'a/b', pricing: { prompt: 'free', completion: -1 } }] }));
  srv.routes.set('/redirect-other', (_q, res) => res.writeHead(302, { location: other.url('/good') }).end());
  srv.routes.set('/5xx', json('upstream down', 502));
  other.routes.set('/good', json(FIXTURE));
});

afterAll(async () => {
  await Promise.all([srv.stop(), other.stop()]);
});

function home() {
  return { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-refresh-')) };
}

const source = (path: string, name = 'or'): RefreshSource => ({ name, url: srv.url(path), format: 'openrouter' });
const config = (...sources: RefreshSource[]): RefreshConfig => ({ enabled: true, ttlHours: 24, sources });

function opts(
  env: Record<string, string>,
  over: Partial<RefreshOptions> & { sources: RefreshSource[] },
): RefreshOptions {
  const { sources, ...rest } = over;
  return {
    env,
    config: config(...sources),
    http: { ca: tls.cert, headersTimeoutMs: 300, maxBytes: 256 * 1024 },
    ...rest,
  };
}

describe('runRefresh: a good source', () => {
  it('writes a valid catalog atomically with its fetch time, source and version; status records the success', async () => {
    const env = home();
    const t = new Date('2026-12-02T10:00:00.000Z');
    const report = await runRefresh(opts(env, { sources: [source('/good')], now: () => t }));
    expect(report).toMatchObject({ result: 'done', sources: [{ name: 'or', result: 'updated', error: null }] });

    const file = catalogPath(env, 'or');
    expect(file).toBe(join(env.TIERGATE_HOME, 'data', 'prices', 'or.catalog.json'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const cat = CatalogSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(cat).toMatchObject({
      version: 'refresh-or-20261202T100000Z',
      date: '2026-12-02',
      fetchedAt: t.toISOString(),
      source: `or ${srv.url('/good')}`,
    });
    const ids = Object.keys(cat.models);
    expect(ids.length).toBeGreaterThan(100);
    expect(report.sources[0]!.models).toBe(ids.length);
    expect(cat.models['gpt-6-astra']?.rates).toMatchObject({ input: '10', output: '50' });
    expect(Object.values(cat.models).every((r) => r.source === cat.version)).toBe(true);

    const st = readStatus(env)!.sources.or!;
    expect(st).toMatchObject({
      lastSuccessAt: t.toISOString(),
      lastAttemptAt: t.toISOString(),
      pendingSince: null,
      lastError: null,
      consecutiveFailures: 0,
      models: ids.length,
      catalogVersion: cat.version,
      bytes: Buffer.byteLength(FIXTURE),
    });
    expect(existsSync(paths(env).refreshLock)).toBe(false);
    expect(statSync(paths(env).refreshStatus).mode & 0o777).toBe(0o600);
    // Last, the effective file the dispatch hooks read: fresh (after the lock and status writes), with the new catalog.
    const eff = readEffective(env, currentInputs(env));
    expect(eff?.layers[0]?.version).toBe(cat.version);
  });

  it('drops a row that fails the contract and counts it', async () => {
    const env = home();
    const report = await runRefresh(
      opts(env, {
        sources: [source('/good')],
        convert: (f, j, s) => {
          const r = convertSource(f, j, s);
          const bad = { ...r.rows[0]!, id: 'broken-model', rates: { ...r.rows[0]!.rates, input: 'NaN' } };
          return { ...r, rows: [bad, ...r.rows] };
        },
      }),
    );
    expect(report.sources[0]!.result).toBe('updated');
    const cat = CatalogSchema.parse(JSON.parse(readFileSync(catalogPath(env, 'or'), 'utf8')));
    expect(cat.models['broken-model']).toBeUndefined();
    expect(cat.models['gpt-6-astra']).toBeDefined();
    const plain = convertSource('openrouter', JSON.parse(FIXTURE), 'x').skipped;
    expect(readStatus(env)!.sources.or!.skippedRows).toBe(plain + 1);
  });
});

describe('a refreshed catalog in the price lookup', () => {
  it('prices a model the bundled snapshot does not know, and names the refreshed catalog that priced it', async () => {
    const env = home();
    const before = createPriceLookup(loadCatalogLayers(env, { priceOverrides: {} }), {
      claudeProvider: 'anthropic',
    }).resolve('gpt-6.1-sol', 'codex');
    expect(['estimated', 'unknown']).toContain(before.how); // at best a stand-in from a neighbouring model
    await runRefresh(opts(env, { sources: [source('/with-new-model')], now: () => new Date('2026-12-02T10:00:00Z') }));
    const layers = loadCatalogLayers(env, { priceOverrides: {} });
    expect(layers.map((l) => l.version)[0]).toBe('refresh-or-20261202T100000Z');
    const r = createPriceLookup(layers, { claudeProvider: 'anthropic' }).resolve('gpt-6.1-sol', 'codex');
    expect(r.how).not.toBe('estimated');
    expect(r.price?.rates).toMatchObject({ input: '3', output: '18', cacheRead: '0.3' });
    expect(r.catalogVersion).toBe('refresh-or-20261202T100000Z');
  });
});

describe('runRefresh: every fault keeps the previous catalog and records the error', () => {
  const faults: Array<[string, string, string | RegExp]> = [
    ['slow (no headers in time)', '/slow', 'timeout'],
    ['huge (past the byte cap)', '/huge', 'too-large'],
    ['truncated body', '/truncated', 'network'],
    ['malformed JSON', '/malformed', 'malformed'],
    ['wrong schema', '/wrong-schema', 'schema'],
    ['rows that fail validation', '/wrong-rows', 'schema'],
    ['redirect to another host', '/redirect-other', 'host'],
    ['5xx', '/5xx', 'status'],
    ['a feed that shrank to a fraction', '/small', 'shrunk'],
  ];

  it.each(faults)('%s', async (_label, path, kind) => {
    const env = home();
    const t1 = new Date('2026-12-01T08:00:00.000Z');
    await runRefresh(opts(env, { sources: [source('/good')], now: () => t1 }));
    const file = catalogPath(env, 'or');
    const before = readFileSync(file);

    const t2 = new Date('2026-12-02T09:00:00.000Z');
    const report = await runRefresh(opts(env, { sources: [source(path)], force: true, now: () => t2 }));
    srv.release();
    expect(report).toMatchObject({ result: 'done', sources: [{ name: 'or', result: 'failed' }] });
    expect(report.sources[0]!.error).toMatch(new RegExp(`^${kind}: `));

    expect(readFileSync(file).equals(before)).toBe(true);
    const st = readStatus(env)!.sources.or!;
    expect(st).toMatchObject({
      lastErrorKind: kind,
      lastAttemptAt: t2.toISOString(),
      lastSuccessAt: t1.toISOString(),
      consecutiveFailures: 1,
      pendingSince: null,
      url: srv.url(path),
    });
    expect(st.lastError).toBeTruthy();
    expect(readFileSync(paths(env).diagnostics, 'utf8')).toContain('"where":"prices.refresh:or"');
    expect(existsSync(paths(env).refreshLock)).toBe(false);
    expect(other.total()).toBe(0);
  });
});

describe('runRefresh: scheduling, lock, switches', () => {
  it('respects the TTL: a fresh source is not fetched until the TTL has passed', async () => {
    const env = home();
    const s = source('/good-2');
    let now = new Date('2026-12-02T10:00:00Z');
    const start = srv.count('/good-2');
    await runRefresh(opts(env, { sources: [s], now: () => now }));
    now = new Date(now.getTime() + 23 * H);
    const second = await runRefresh(opts(env, { sources: [s], now: () => now }));
    expect(second.sources[0]).toMatchObject({ result: 'fresh', models: expect.any(Number) });
    expect(srv.count('/good-2') - start).toBe(1);
    now = new Date(now.getTime() + 1 * H);
    await runRefresh(opts(env, { sources: [s], now: () => now }));
    expect(srv.count('/good-2') - start).toBe(2);
  });

  it('backs off a failing source instead of hammering it', async () => {
    const env = home();
    const s = source('/5xx');
    const t0 = Date.parse('2026-12-02T10:00:00Z');
    let now = t0;
    const start = srv.count('/5xx');
    const tick = async (at: number) => {
      now = at;
      await runRefresh(opts(env, { sources: [s], now: () => new Date(now) }));
      return srv.count('/5xx') - start;
    };
    expect(await tick(t0)).toBe(1);
    expect(await tick(t0 + 1)).toBe(1); // the next session start, a moment later
    const waiting = await runRefresh(opts(env, { sources: [s], now: () => new Date(t0 + 2) }));
    expect(waiting.sources[0]).toMatchObject({ result: 'waiting', error: expect.stringMatching(/^status: HTTP 502/) });
    expect(await tick(t0 + 1 * H)).toBe(2); // 1 h after the first failure
    expect(await tick(t0 + 2 * H)).toBe(2); // the second failure waits 2 h
    expect(await tick(t0 + 3 * H)).toBe(3);
    expect(readStatus(env)!.sources.or!.consecutiveFailures).toBe(3);
  });

  it('an attempt that died mid-fetch counts as a failure (the marker is written first)', async () => {
    const env = home();
    const before = srv.count('/slow');
    const pending = runRefresh(
      opts(env, { sources: [source('/slow')], http: { ca: tls.cert, headersTimeoutMs: 30_000 } }),
    );
    // While the server holds the answer, the marker is already on disk: a kill now would leave it behind.
    await expect.poll(() => srv.count('/slow')).toBe(before + 1);
    expect(readStatus(env)!.sources.or).toMatchObject({ consecutiveFailures: 1, pendingSince: expect.any(String) });
    srv.release();
    await pending;
  });

  it('one failing source does not stop the next', async () => {
    const env = home();
    const r = await runRefresh(opts(env, { sources: [source('/5xx', 'first'), source('/good', 'second')] }));
    expect(r.sources.map((s) => [s.name, s.result])).toEqual([
      ['first', 'failed'],
      ['second', 'updated'],
    ]);
    expect(existsSync(catalogPath(env, 'second'))).toBe(true);
    expect(existsSync(catalogPath(env, 'first'))).toBe(false);
  });

  it('does nothing while another refresh holds the lock', async () => {
    const env = home();
    const nonce = acquireLock(paths(env).refreshLock)!;
    const before = srv.total();
    const r = await runRefresh(opts(env, { sources: [source('/good')], force: true }));
    expect(r.result).toBe('locked');
    expect(srv.total()).toBe(before);
    releaseLock(paths(env).refreshLock, nonce);
  });

  it('TIERGATE_PRICE_REFRESH=off and refresh.enabled=false switch it off', async () => {
    const before = srv.total();
    const off = await runRefresh(
      opts({ ...home(), TIERGATE_PRICE_REFRESH: 'off' }, { sources: [source('/good')], force: true }),
    );
    expect(off).toMatchObject({ result: 'disabled', why: 'TIERGATE_PRICE_REFRESH=off' });
    const env = home();
    const disabled = await runRefresh({
      ...opts(env, { sources: [source('/good')], force: true }),
      config: { ...config(source('/good')), enabled: false },
    });
    expect(disabled.result).toBe('disabled');
    expect(srv.total()).toBe(before);
  });

  it('refuses a source name that is not a safe file name, without fetching', async () => {
    const env = home();
    const before = srv.total();
    const r = await runRefresh(opts(env, { sources: [source('/good', '../escape')] }));
    expect(r.sources[0]).toMatchObject({ result: 'failed', error: expect.stringMatching(/^config: /) });
    expect(srv.total()).toBe(before);
  });

  it('refuses plain http to a non-loopback URL before any connection', async () => {
    const env = home();
    const r = await runRefresh({
      env,
      config: config({ name: 'x', url: 'http://prices.invalid/models', format: 'litellm' }),
    });
    expect(r.sources[0]!.error).toMatch(/^scheme: /);
  });
});
