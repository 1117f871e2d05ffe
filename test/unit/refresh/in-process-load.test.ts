/**
 * OpenCode's plugin and pi's extension have no SessionStart hook process: loading them starts the background price
 * refresh (the real entry points, the real trigger, dist/refresh.js against a local HTTPS server), once per process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import piExtension from '../../../extensions/pi/index.js';
import { Tiergate } from '../../../plugins/opencode/index.js';
import { refreshOnce } from '../../../src/adapters/in-process/refresh.js';
import { paths } from '../../../src/io/paths.js';
import { catalogPath } from '../../../src/refresh/run.js';
import { PriceServer, json, makeCert, type Tls } from './support/server.js';

const root = join(import.meta.dirname, '../../..');
const FIXTURE = readFileSync(join(root, 'test/fixtures/prices/openrouter-api-models.json'), 'utf8');

let tls: Tls;
let srv: PriceServer;
const saved = { ...process.env };

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/refresh.js'))) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')]);
  tls = makeCert();
  srv = await new PriceServer(tls).start();
  for (const p of ['/pi', '/opencode', '/off']) srv.routes.set(p, json(FIXTURE));
});

afterAll(async () => {
  await srv.stop();
});

afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

/** The user's proxy settings: the refresh honours them (http.ts), and a loopback test server is not behind them. */
const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

/** A tiergate home whose refresh fetches from the test server, installed as this process's environment (the entry
 * points read process.env, as they do inside the host), without the proxy variables of whoever runs the tests. */
function useHome(path: string, extra: Record<string, string> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'tg-inproc-'));
  const env = { HOME: home, TIERGATE_HOME: home, NODE_EXTRA_CA_CERTS: tls.certFile, ...extra };
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(
    paths(env).config,
    JSON.stringify({
      refresh: { enabled: true, ttlHours: 24, sources: [{ name: 'or', url: srv.url(path), format: 'openrouter' }] },
    }),
  );
  for (const k of PROXY_VARS) delete process.env[k];
  Object.assign(process.env, env);
  return env;
}

const loaders: Record<'pi' | 'opencode', () => Promise<unknown>> = {
  pi: async () => piExtension({ on: () => undefined }),
  opencode: async () => Tiergate({ client: {}, directory: tmpdir() } as never),
};

describe('in-process hosts start the background price refresh at load', () => {
  for (const host of ['pi', 'opencode'] as const) {
    it(`${host}: loading twice with prices due runs one refresh, which fetches once and writes the catalog`, async () => {
      const env = useHome(`/${host}`);
      await loaders[host]();
      await loaders[host]();
      await expect
        .poll(() => existsSync(catalogPath(env, 'or')) && !existsSync(paths(env).refreshLock), { timeout: 30_000 })
        .toBe(true);
      expect(srv.count(`/${host}`)).toBe(1);
    }, 60_000);
  }

  it('TIERGATE_PRICE_REFRESH=off: loading starts nothing (no lock taken, no status, no request)', async () => {
    const env = useHome('/off', { TIERGATE_PRICE_REFRESH: 'off' });
    await loaders.pi();
    await loaders.opencode();
    // The trigger takes the lock before it spawns and runs synchronously inside the load: no lock means no process.
    expect(existsSync(paths(env).refreshLock)).toBe(false);
    expect(existsSync(catalogPath(env, 'or'))).toBe(false);
    expect(existsSync(paths(env).refreshStatus)).toBe(false);
    expect(srv.count('/off')).toBe(0);
  });
});

describe('refreshOnce', () => {
  it('calls the trigger once per data dir in a process, and reports what it did', () => {
    const calls: string[] = [];
    const trigger = (e: Record<string, string | undefined>) => {
      calls.push(e.TIERGATE_HOME!);
      return { started: false as const, reason: 'fresh' as const, detail: 'test' };
    };
    const a = { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-once-')) };
    const b = { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-once-')) };
    expect(refreshOnce(a, 'test', trigger)).toMatchObject({ reason: 'fresh' });
    expect(refreshOnce(a, 'test', trigger)).toBeNull();
    expect(refreshOnce(b, 'test', trigger)).toMatchObject({ reason: 'fresh' });
    expect(calls).toEqual([a.TIERGATE_HOME, b.TIERGATE_HOME]);
  });

  it('a trigger that throws is one diagnostic line, never an exception', () => {
    const env = { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-once-')) };
    expect(
      refreshOnce(env, 'pi:load', () => {
        throw new Error('boom');
      }),
    ).toBeNull();
    const log = readFileSync(join(paths(env).data, 'diagnostics.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ where: 'pi:load', message: 'price refresh: Error: boom' });
  });
});
