/**
 * The trigger and the detached process it starts (dist/refresh.js, dist/hook.cjs: `npm test` builds them first).
 * Ordering is asserted through the server (it holds its answer until the test lets go), never through timing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogSchema } from '../../../src/contracts/prices.js';
import { paths } from '../../../src/io/paths.js';
import { catalogPath } from '../../../src/refresh/run.js';
import type { RefreshConfig } from '../../../src/refresh/settings.js';
import { readStatus } from '../../../src/refresh/status.js';
import { nodeBinary } from '../../../src/refresh/background.js';
import { triggerRefresh } from '../../../src/refresh/trigger.js';
import { PriceServer, json, makeCert, type Tls } from './support/server.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const DIST_REFRESH = join(root, 'dist/refresh.js');
const DIST_HOOK = join(root, 'dist/hook.cjs');
const FIXTURE = readFileSync(join(root, 'test/fixtures/prices/openrouter-api-models.json'), 'utf8');

let tls: Tls;
let srv: PriceServer;

beforeAll(async () => {
  if (!existsSync(DIST_REFRESH) || !existsSync(DIST_HOOK))
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs')]);
  tls = makeCert();
  srv = await new PriceServer(tls).start();
  for (const p of ['/held-1', '/held-10', '/held-cli']) {
    srv.routes.set(p, async (_q, res, s) => {
      await s.hold();
      json(FIXTURE)(_q, res, s);
    });
  }
  srv.routes.set('/good', json(FIXTURE));
});

afterAll(async () => {
  await srv.stop();
});

/** A tiergate home whose user config points the refresh at the test server; the child trusts the test CA. */
function setup(path: string): { env: Record<string, string>; config: RefreshConfig } {
  const home = mkdtempSync(join(tmpdir(), 'tg-trigger-'));
  const env = { PATH: process.env.PATH ?? '', HOME: home, TIERGATE_HOME: home, NODE_EXTRA_CA_CERTS: tls.certFile };
  const config: RefreshConfig = {
    enabled: true,
    ttlHours: 24,
    sources: [{ name: 'or', url: srv.url(path), format: 'openrouter' }],
  };
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(paths(env).config, JSON.stringify({ refresh: config }));
  return { env, config };
}

const catalogOf = (env: Record<string, string>) =>
  CatalogSchema.parse(JSON.parse(readFileSync(catalogPath(env, 'or'), 'utf8')));

describe('triggerRefresh', () => {
  it('returns before the fetch completes; the detached process then writes the catalog', async () => {
    const { env } = setup('/held-1');
    const r = triggerRefresh(env, { script: DIST_REFRESH });
    expect(r).toMatchObject({ started: true, sources: ['or'] });
    // The server has not answered yet (it holds until release), so no catalog can exist at this point.
    expect(existsSync(catalogPath(env, 'or'))).toBe(false);
    await expect.poll(() => srv.count('/held-1'), { timeout: 30_000 }).toBe(1);
    expect(existsSync(catalogPath(env, 'or'))).toBe(false);
    srv.release();
    await expect
      .poll(() => existsSync(paths(env).refreshLock) || !existsSync(catalogPath(env, 'or')), { timeout: 30_000 })
      .toBe(false);
    expect(Object.keys(catalogOf(env).models).length).toBeGreaterThan(100);
    expect(readStatus(env)!.sources.or).toMatchObject({ lastError: null, consecutiveFailures: 0 });
  }, 60_000);

  it('then respects the TTL: the next session start does not fetch', async () => {
    const { env } = setup('/good');
    triggerRefresh(env, { script: DIST_REFRESH });
    await expect
      .poll(() => existsSync(catalogPath(env, 'or')) && !existsSync(paths(env).refreshLock), { timeout: 30_000 })
      .toBe(true);
    const hits = srv.count('/good');
    expect(triggerRefresh(env, { script: DIST_REFRESH })).toMatchObject({ started: false, reason: 'fresh' });
    expect(srv.count('/good')).toBe(hits);
  }, 60_000);

  it('starts nothing when switched off', () => {
    const { env } = setup('/good');
    const hits = srv.total();
    expect(triggerRefresh({ ...env, TIERGATE_PRICE_REFRESH: 'off' }, { script: DIST_REFRESH })).toMatchObject({
      started: false,
      reason: 'off',
    });
    writeFileSync(paths(env).config, JSON.stringify({ refresh: { enabled: false } }));
    expect(triggerRefresh(env, { script: DIST_REFRESH })).toMatchObject({ started: false, reason: 'off' });
    expect(existsSync(paths(env).refreshLock)).toBe(false);
    expect(srv.total()).toBe(hits);
  });

  it('fails open when the refresh script is missing: no throw, no lock left, one diagnostic', () => {
    const { env } = setup('/good');
    const r = triggerRefresh(env, { script: join(paths(env).data, 'nope.js') });
    expect(r).toMatchObject({ started: false, reason: 'spawn-failed' });
    expect(existsSync(paths(env).refreshLock)).toBe(false);
    expect(readFileSync(paths(env).diagnostics, 'utf8')).toContain('prices.refresh.trigger');
  });
});

describe('nodeBinary', () => {
  it('uses this node under Node, and node from PATH inside Bun or a compiled host', () => {
    expect(nodeBinary('/usr/local/bin/node', {})).toBe('/usr/local/bin/node');
    expect(nodeBinary('C:\\Program Files\\nodejs\\node.exe', {})).toBe('C:\\Program Files\\nodejs\\node.exe');
    expect(nodeBinary('/home/u/.bun/bin/bun', { bun: '1.2.0' })).toBe('node');
    expect(nodeBinary('/usr/lib/opencode/bin/opencode', {})).toBe('node');
  });
});

describe('10 concurrent SessionStart hooks (`node dist/hook.cjs codex SessionStart`)', () => {
  it('start exactly one refresh: one fetch reaches the server, and every hook returns while it is held', async () => {
    const { env } = setup('/held-10');
    const payload = fixturePayload('codex/SessionStart.basic.json');
    const input = JSON.stringify({ ...payload, cwd: env.HOME });
    const runs = Array.from(
      { length: 10 },
      () =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, [DIST_HOOK, 'codex', 'SessionStart'], {
            env,
            stdio: ['pipe', 'ignore', 'ignore'],
          });
          child.stdin.end(input);
          child.on('close', (code) => resolve(code));
        }),
    );
    // All ten hooks have exited while the server still holds the one fetch.
    expect(await Promise.all(runs)).toEqual(Array(10).fill(0));
    await expect.poll(() => srv.count('/held-10'), { timeout: 30_000 }).toBe(1);
    expect(existsSync(catalogPath(env, 'or'))).toBe(false);
    srv.release();
    await expect
      .poll(() => existsSync(catalogPath(env, 'or')) && !existsSync(paths(env).refreshLock), { timeout: 30_000 })
      .toBe(true);
    expect(srv.count('/held-10')).toBe(1);
    const diag = existsSync(paths(env).diagnostics) ? readFileSync(paths(env).diagnostics, 'utf8') : '';
    expect(diag).not.toContain('"level":"error"');
  }, 120_000); // ten node processes on a 2-core machine under a parallel suite: a budget, not a measurement
});
