/**
 * The real Codex CLI (0.169.0) with tiergate's shipped hooks: its SessionStart hook starts the detached price refresh,
 * which fetches from a price server on 127.0.0.1 (HTTPS, self-signed CA via NODE_EXTRA_CA_CERTS) and writes a fresh
 * catalog. The price server holds its answer until Codex has exited, so the catalog can only have been written by the
 * background process, after the session's hook returned.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogSchema } from '../../../src/contracts/prices.js';
import { paths } from '../../../src/io/paths.js';
import { readStatus } from '../../../src/refresh/status.js';
import { makeSandbox, runClaude } from '../support/claude-run.js';
import { startFakeAnthropic } from '../support/fake-anthropic-api.js';
import {
  codexEnv,
  execArgs,
  makeCodexHome,
  runCodex,
  shippedCodexHooks,
  writeCodexConfig,
  writeHooksJson,
  type CodexHome,
} from '../support/codex-run.js';
import { startFakeResponsesApi } from '../support/fake-responses-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { lastMessage, startFakeChatApi } from '../support/fake-chat-api.js';
import { makePiSandbox, runPi } from '../support/pi-run.js';
import { makeSandbox as makeOpencodeSandbox, runOpencode } from '../support/opencode-run.js';
import { PriceServer, json, makeCert, type Tls } from '../../unit/refresh/support/server.js';

const repo = join(import.meta.dirname, '../../..');
const found = harnessBin('codex');
const claude = harnessBin('claude');
const FIXTURE = readFileSync(join(repo, 'test/fixtures/prices/openrouter-api-models.json'), 'utf8');

describe.skipIf(!found.ok)('SessionStart starts the background price refresh (real Codex CLI)', () => {
  let tls: Tls;
  let prices: PriceServer;
  const homes: CodexHome[] = [];

  beforeAll(async () => {
    if (!existsSync(join(repo, 'dist/hook.cjs')) || !existsSync(join(repo, 'dist/refresh.js'))) {
      throw new Error('dist/ missing: run `npm run build` (npm run test:e2e does)');
    }
    tls = makeCert();
    prices = await new PriceServer(tls).start();
    prices.routes.set('/api/v1/models', async (req, res, s) => {
      prices.events.push(`fetch ${req.headers['user-agent']}`);
      await s.hold();
      json(FIXTURE)(req, res, s);
    });
  });

  afterAll(async () => {
    await prices?.stop();
    for (const h of homes) h.cleanup();
  });

  it('codex exec: the session ends before the fetch does; the detached process then writes the catalog', async () => {
    if (!found.ok) return;
    const api = await startFakeResponsesApi(() => ({ type: 'text', text: 'Done.' }));
    const home = makeCodexHome('tg-refresh-e2e-');
    homes.push(home);
    writeCodexConfig(home, { apiUrl: api.url, model: 'gpt-6-astra' });
    writeHooksJson(home, shippedCodexHooks());
    // The user's tiergate config points the refresh at the local price server only.
    const tgEnv = { TIERGATE_HOME: home.tiergateHome };
    mkdirSync(join(home.tiergateHome, 'config'), { recursive: true });
    writeFileSync(
      paths(tgEnv).config,
      JSON.stringify({
        refresh: { sources: [{ name: 'e2e-openrouter', url: prices.url('/api/v1/models'), format: 'openrouter' }] },
      }),
    );

    const startedAt = Date.now();
    const run = await runCodex(found.bin, execArgs('Say done.'), {
      cwd: home.project,
      env: codexEnv(home, { TIERGATE_PRICE_REFRESH: 'on', NODE_EXTRA_CA_CERTS: tls.certFile }),
      timeoutMs: 120_000,
    });
    await api.close();
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(api.requests.length).toBeGreaterThan(0);
    expect(api.requests[0]!.model).toBe('gpt-6-astra');

    // Codex has exited. The one price fetch has arrived (or is about to) and is still held: no catalog yet.
    await expect.poll(() => prices.count('/api/v1/models'), { timeout: 15_000 }).toBe(1);
    const catalogFile = join(paths(tgEnv).priceCacheDir, 'e2e-openrouter.catalog.json');
    expect(existsSync(catalogFile)).toBe(false);
    expect(prices.events).toContain('fetch tiergate-price-refresh');

    prices.release();
    await expect
      .poll(() => existsSync(catalogFile) && !existsSync(paths(tgEnv).refreshLock), { timeout: 15_000 })
      .toBe(true);
    const catalog = CatalogSchema.parse(JSON.parse(readFileSync(catalogFile, 'utf8')));
    expect(catalog.source).toBe(`e2e-openrouter ${prices.url('/api/v1/models')}`);
    expect(Date.parse(catalog.fetchedAt!)).toBeGreaterThanOrEqual(startedAt);
    expect(catalog.version).toMatch(/^refresh-e2e-openrouter-\d{8}T\d{6}Z$/);
    expect(catalog.models['gpt-6-astra']?.rates).toMatchObject({ input: '10', output: '50' });
    expect(readStatus(tgEnv)!.sources['e2e-openrouter']).toMatchObject({
      lastError: null,
      consecutiveFailures: 0,
      models: Object.keys(catalog.models).length,
    });
    expect(prices.count('/api/v1/models')).toBe(1);
  });
});

describe.skipIf(!claude.ok)('SessionStart starts the background price refresh (real Claude Code, --plugin-dir)', () => {
  let tls: Tls;
  let prices: PriceServer;

  beforeAll(async () => {
    tls = makeCert();
    prices = await new PriceServer(tls).start();
    prices.routes.set('/litellm.json', async (req, res, s) => {
      await s.hold();
      json(readFileSync(join(repo, 'test/fixtures/prices/litellm-prices.json'), 'utf8'))(req, res, s);
    });
  });

  afterAll(async () => {
    await prices?.stop();
  });

  it('claude -p: the session ends before the fetch does; the detached process then writes the catalog', async () => {
    if (!claude.ok) return;
    const api = await startFakeAnthropic(() => ({ kind: 'text', text: 'Done.' }));
    const sb = makeSandbox('tg-refresh-claude-');
    const tgEnv = { TIERGATE_HOME: sb.tiergateHome };
    mkdirSync(join(sb.tiergateHome, 'config'), { recursive: true });
    writeFileSync(
      paths(tgEnv).config,
      JSON.stringify({
        refresh: { sources: [{ name: 'e2e-litellm', url: prices.url('/litellm.json'), format: 'litellm' }] },
      }),
    );

    const res = await runClaude(
      claude.bin,
      sb,
      api.url,
      ['-p', 'Say done.', '--output-format', 'json', '--plugin-dir', repo],
      {
        env: { TIERGATE_PRICE_REFRESH: 'on', NODE_EXTRA_CA_CERTS: tls.certFile },
        timeoutMs: 120_000,
      },
    );
    await api.close();
    expect(res.code, res.stderr.slice(-2000)).toBe(0);
    expect(api.requests.length).toBeGreaterThan(0);

    await expect.poll(() => prices.count('/litellm.json'), { timeout: 15_000 }).toBe(1);
    const catalogFile = join(paths(tgEnv).priceCacheDir, 'e2e-litellm.catalog.json');
    expect(existsSync(catalogFile)).toBe(false);
    prices.release();
    await expect
      .poll(() => existsSync(catalogFile) && !existsSync(paths(tgEnv).refreshLock), { timeout: 15_000 })
      .toBe(true);
    const catalog = CatalogSchema.parse(JSON.parse(readFileSync(catalogFile, 'utf8')));
    expect(catalog.source).toBe(`e2e-litellm ${prices.url('/litellm.json')}`);
    expect(catalog.models['claude-opus-5']?.rates).toMatchObject({ input: '5', output: '25' });
    expect(prices.count('/litellm.json')).toBe(1);
  });
});

const pi = harnessBin('pi');

describe.skipIf(!pi.ok)('pi 0.73.1: loading the extension starts the background price refresh (real binary)', () => {
  let tls: Tls;
  let prices: PriceServer;

  beforeAll(async () => {
    tls = makeCert();
    prices = await new PriceServer(tls).start();
    prices.routes.set('/pi-models', async (req, res, s) => {
      await s.hold();
      json(FIXTURE)(req, res, s);
    });
  });

  afterAll(async () => {
    await prices?.stop();
  });

  it('pi -p with a parent and a child process: one fetch, after pi has exited; the detached process writes the catalog', async () => {
    if (!pi.ok) return;
    const api = await startFakeChatApi((req) => {
      if (!req.tools.includes('subagent')) return { text: 'CHILD done.' };
      if (lastMessage(req)?.role === 'tool') return { text: 'PARENT_FINAL' };
      return { toolCalls: [{ name: 'subagent', args: { agent: 'cheap', task: 'CHILD_TASK' } }] };
    });
    try {
      const sb = makePiSandbox({
        baseURL: api.baseURL,
        extension: join(repo, 'dist/pi.js'),
        agents: { cheap: 'fake/small' },
        tiergateConfig: {
          refresh: { sources: [{ name: 'e2e-pi', url: prices.url('/pi-models'), format: 'openrouter' }] },
        },
      });
      const tgEnv = { TIERGATE_HOME: sb.tiergateHome };
      const exampleTool = join(pi.bin, '../../@mariozechner/pi-coding-agent/examples/extensions/subagent/index.ts');
      const run = await runPi(pi.bin, sb, ['-e', exampleTool], 'PARENT_GO', {
        TIERGATE_PRICE_REFRESH: 'on',
        NODE_EXTRA_CA_CERTS: tls.certFile,
      });
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      // A child pi process ran (it loads tiergate too, through settings `extensions`); still one fetch.
      expect(api.requests.some((r) => !r.tools.includes('subagent'))).toBe(true);
      await expect.poll(() => prices.count('/pi-models'), { timeout: 15_000 }).toBe(1);
      const catalogFile = join(paths(tgEnv).priceCacheDir, 'e2e-pi.catalog.json');
      expect(existsSync(catalogFile)).toBe(false);
      prices.release();
      await expect
        .poll(() => existsSync(catalogFile) && !existsSync(paths(tgEnv).refreshLock), { timeout: 15_000 })
        .toBe(true);
      expect(
        Object.keys(CatalogSchema.parse(JSON.parse(readFileSync(catalogFile, 'utf8'))).models).length,
      ).toBeGreaterThan(100);
      expect(prices.count('/pi-models')).toBe(1);
    } finally {
      await api.close();
    }
  });
});

const opencode = harnessBin('opencode');

describe.skipIf(!opencode.ok)(
  'OpenCode 1.18.33: loading the plugin starts the background price refresh (real binary, Bun host)',
  () => {
    let tls: Tls;
    let prices: PriceServer;

    beforeAll(async () => {
      tls = makeCert();
      prices = await new PriceServer(tls).start();
      prices.routes.set('/oc-models', async (req, res, s) => {
        await s.hold();
        json(FIXTURE)(req, res, s);
      });
    });

    afterAll(async () => {
      await prices?.stop();
    });

    it('opencode run: one fetch, by `node` from PATH (the plugin runs in Bun), finished after opencode exited', async () => {
      if (!opencode.ok) return;
      const api = await startFakeChatApi(() => ({ text: 'Done.' }));
      try {
        const sb = makeOpencodeSandbox({
          baseURL: api.baseURL,
          pluginFile: join(repo, 'dist/opencode.js'),
          tiergateConfig: {
            refresh: { sources: [{ name: 'e2e-oc', url: prices.url('/oc-models'), format: 'openrouter' }] },
          },
        });
        const tgEnv = { TIERGATE_HOME: sb.tiergateHome };
        const run = await runOpencode(opencode.bin, sb, 'Say done.', {
          TIERGATE_PRICE_REFRESH: 'on',
          NODE_EXTRA_CA_CERTS: tls.certFile,
        });
        expect(run.code, run.stderr.slice(-2000)).toBe(0);
        await expect.poll(() => prices.count('/oc-models'), { timeout: 15_000 }).toBe(1);
        const catalogFile = join(paths(tgEnv).priceCacheDir, 'e2e-oc.catalog.json');
        expect(existsSync(catalogFile)).toBe(false);
        prices.release();
        await expect
          .poll(() => existsSync(catalogFile) && !existsSync(paths(tgEnv).refreshLock), { timeout: 15_000 })
          .toBe(true);
        expect(
          Object.keys(CatalogSchema.parse(JSON.parse(readFileSync(catalogFile, 'utf8'))).models).length,
        ).toBeGreaterThan(100);
        expect(prices.count('/oc-models')).toBe(1);
      } finally {
        await api.close();
      }
    }, 300_000);
  },
);
