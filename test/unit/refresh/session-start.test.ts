/** The SessionStart handlers start the refresh: Claude through the real runner, Codex through its injected dependency. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodexHandlers } from '../../../src/adapters/codex/command.js';
import { runHook } from '../../../src/wiring/command-hooks.js';
import { paths } from '../../../src/io/paths.js';
import { catalogPath } from '../../../src/refresh/due.js';
import { PriceServer, json, makeCert, type Tls } from './support/server.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const FIXTURES = join(root, 'test/fixtures');
const FIXTURE = readFileSync(join(FIXTURES, 'prices/openrouter-api-models.json'), 'utf8');
const payload = (harness: string) => fixturePayload(`${harness}/SessionStart.basic.json`);

let tls: Tls;
let srv: PriceServer;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/refresh.js'))) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')]);
  tls = makeCert();
  srv = await new PriceServer(tls).start();
  srv.routes.set('/held', async (q, res, s) => {
    await s.hold();
    json(FIXTURE)(q, res, s);
  });
});

afterAll(async () => {
  await srv.stop();
});

function home(): Record<string, string> {
  const h = mkdtempSync(join(tmpdir(), 'tg-ss-'));
  const env = { TIERGATE_HOME: h, HOME: h, PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: tls.certFile };
  mkdirSync(join(h, 'config'), { recursive: true });
  writeFileSync(
    paths(env).config,
    JSON.stringify({ refresh: { sources: [{ name: 'or', url: srv.url('/held'), format: 'openrouter' }] } }),
  );
  return env;
}

describe('SessionStart starts the price refresh', () => {
  it('claude: the hook answers while the fetch is still held; the catalog lands afterwards', async () => {
    const env = home();
    const p = { ...payload('claude'), cwd: env.TIERGATE_HOME };
    const out = await runHook('claude', 'SessionStart', Readable.from([Buffer.from(JSON.stringify(p))]), env);
    expect(out.failed).toBeNull();
    expect(existsSync(catalogPath(env, 'or'))).toBe(false);
    await expect.poll(() => srv.count('/held'), { timeout: 30_000 }).toBe(1);
    srv.release();
    await expect
      .poll(() => existsSync(catalogPath(env, 'or')) && !existsSync(paths(env).refreshLock), { timeout: 30_000 })
      .toBe(true);
  }, 60_000);

  it('claude: with TIERGATE_PRICE_REFRESH=off nothing is started', async () => {
    const env = { ...home(), TIERGATE_PRICE_REFRESH: 'off' };
    const before = srv.total();
    const out = await runHook(
      'claude',
      'SessionStart',
      Readable.from([Buffer.from(JSON.stringify(payload('claude')))]),
      env,
    );
    expect(out.failed).toBeNull();
    expect(existsSync(paths(env).refreshLock)).toBe(false);
    expect(srv.total()).toBe(before);
  });

  it('codex: the shipped handlers pass the trigger; SessionStart calls it once with the hook env', async () => {
    const calls: unknown[] = [];
    const env = { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-ss-codex-')) };
    const h = createCodexHandlers({
      route: () => {
        throw new Error('not called');
      },
      spool: () => undefined,
      now: () => 0,
      runtime: () => {
        throw new Error('not called');
      },
      observe: () => undefined,
      refresh: (e) => void calls.push(e),
    });
    await h.SessionStart!(payload('codex'), {
      env,
      harness: 'codex',
      event: 'SessionStart',
      startedAt: 0,
      deadlineMs: 5000,
    });
    expect(calls).toEqual([env]);
  });
});
