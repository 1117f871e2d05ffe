/** `tiergate prices refresh --wait` and `tiergate prices status`, through the built CLI (dist/cli.js). */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../../src/io/paths.js';
import { run as refreshCommand } from '../../../src/cli/commands/prices-refresh.js';
import { formatAge, formatOverview, run as statusCommand } from '../../../src/cli/commands/prices-status.js';
import { refreshOverview } from '../../../src/refresh/report.js';
import { PriceServer, json, makeCert, type Tls } from './support/server.js';

const root = join(import.meta.dirname, '../../..');
const CLI = join(root, 'dist/cli.js');
const FIXTURE = readFileSync(join(root, 'test/fixtures/prices/openrouter-api-models.json'), 'utf8');

let tls: Tls;
let srv: PriceServer;

beforeAll(async () => {
  if (!existsSync(CLI) || !existsSync(join(root, 'dist/refresh.js')))
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs')]);
  tls = makeCert();
  srv = await new PriceServer(tls).start();
  srv.routes.set('/good', json(FIXTURE));
  srv.routes.set('/down', json('no', 503));
});

afterAll(async () => {
  await srv.stop();
});

function setup(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'tg-cli-'));
  const env = { PATH: process.env.PATH ?? '', HOME: home, TIERGATE_HOME: home, NODE_EXTRA_CA_CERTS: tls.certFile };
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(
    paths(env).config,
    JSON.stringify({
      refresh: {
        sources: [
          { name: 'or', url: srv.url('/good'), format: 'openrouter' },
          { name: 'down', url: srv.url('/down'), format: 'litellm' },
        ],
      },
    }),
  );
  return env;
}

/** Async: the test server lives in this process, so a synchronous spawn would starve it. */
function cli(env: Record<string, string>, ...args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('close', (status) => resolve({ status, stdout }));
  });
}

describe('tiergate prices refresh --wait / prices status', () => {
  it('refresh --wait reports each source and exits 1 when one failed; status shows age, count and the error', async () => {
    const env = setup();
    const r = await cli(env, 'prices', 'refresh', '--wait', '--json');
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.result).toBe('done');
    expect(report.sources[0].error).toBeNull();
    expect(report.sources.map((s: { name: string; result: string }) => [s.name, s.result])).toEqual([
      ['or', 'updated'],
      ['down', 'failed'],
    ]);

    const st = await cli(env, 'prices', 'status', '--json');
    expect(st.status).toBe(0);
    const o = JSON.parse(st.stdout);
    expect(o).toMatchObject({ enabled: true, ttlHours: 24, running: null });
    const [or, down] = o.sources;
    expect(or).toMatchObject({
      name: 'or',
      models: report.sources[0].models,
      lastError: null,
      catalogVersion: expect.stringMatching(/^refresh-or-/),
    });
    expect(or.ageMs).toBeGreaterThanOrEqual(0);
    expect(down).toMatchObject({
      name: 'down',
      models: null,
      fetchedAt: null,
      lastErrorKind: 'status',
      consecutiveFailures: 1,
    });
    expect(down.nextDueAt).not.toBeNull();

    const text = await cli(env, 'prices', 'status');
    expect(text.stdout).toContain('Price refresh: on, every 24 h');
    expect(text.stdout).toMatch(/or \(openrouter\)[\s\S]*catalog {3}\d+ models, fetched just now/);
    expect(text.stdout).toMatch(/down \(litellm\)[\s\S]*catalog {3}none yet[\s\S]*error {5}status: HTTP 503/);
  });

  it('status says when refresh is switched off, and refresh does nothing', async () => {
    const env = { ...setup(), TIERGATE_PRICE_REFRESH: 'off' };
    const before = srv.total();
    const r = await cli(env, 'prices', 'refresh', '--wait');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('switched off (TIERGATE_PRICE_REFRESH=off)');
    expect((await cli(env, 'prices', 'status')).stdout).toContain('Price refresh: OFF (TIERGATE_PRICE_REFRESH=off)');
    expect(srv.total()).toBe(before);
  });

  it('unknown flags are a usage error', async () => {
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      expect(await refreshCommand(['--nope'])).toBe(2);
      expect(await statusCommand(['--wait'])).toBe(2);
    } finally {
      process.stdout.write = write;
    }
  });

  it('formats ages and an empty home', () => {
    expect([0, 5 * 60_000, 3 * 3_600_000 + 60_000, 5 * 86_400_000, -1].map(formatAge)).toEqual([
      'just now',
      '5 min ago',
      '3 h 1 min ago',
      '5 days ago',
      'in the future',
    ]);
    const env = { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-cli-empty-')) };
    const o = refreshOverview(env, {
      enabled: true,
      ttlHours: 24,
      sources: [{ name: 'x', url: 'https://x.test/', format: 'openrouter' }],
    });
    expect(o.sources[0]).toMatchObject({ models: null, lastAttemptAt: null, nextDueAt: null, interrupted: false });
    expect(formatOverview(o)).toContain('none yet (the bundled snapshot is used)');
  });
});
