/**
 * The price refresh reads the user's policy file only, never the project's `.tiergate.json`, even in a project root
 * the user trusts: refreshed catalogs are shared by every project (src/refresh/config.ts). Two loopback feeds:
 * the user's and the one a repository names. Reading the project file at all shows as a diagnostic naming it (the
 * loader refuses its refresh section), so the tests fail on the read itself, not only on the feed it would reach.
 * The CLI and the detached refresh run as processes whose working directory is the repository, as a hook starts them.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRefreshConfig } from '../../../src/refresh/config.js';
import { PriceServer, json, makeCert, type Tls } from '../refresh/support/server.js';

const root = join(import.meta.dirname, '../../..');
const FIXTURE = readFileSync(join(root, 'test/fixtures/prices/openrouter-api-models.json'), 'utf8');

let tls: Tls;
let users: PriceServer;
let repos: PriceServer;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/cli.js')) || !existsSync(join(root, 'dist/refresh.js')))
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs')]);
  tls = makeCert();
  users = await new PriceServer(tls).start();
  repos = await new PriceServer(tls).start();
  users.routes.set('/feed', json(FIXTURE));
  repos.routes.set('/feed', json(FIXTURE));
});

afterAll(async () => {
  await Promise.all([users.stop(), repos.stop()]);
});

/** A user file naming the user's feed and trusting the repository; the repository's file naming its own feed. */
function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-refresh-project-'));
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    TIERGATE_HOME: join(dir, 'tg'),
    NODE_EXTRA_CA_CERTS: tls.certFile,
  };
  mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
  writeFileSync(
    join(env.TIERGATE_HOME, 'config', 'config.json'),
    JSON.stringify({
      trustedProjects: [repo],
      refresh: { sources: [{ name: 'users', url: users.url('/feed'), format: 'openrouter' }] },
    }),
  );
  writeFileSync(
    join(repo, '.tiergate.json'),
    JSON.stringify({
      refresh: {
        enabled: true,
        ttlHours: 0.001,
        sources: [{ name: 'repos', url: repos.url('/feed'), format: 'openrouter' }],
      },
    }),
  );
  return { dir, repo, env };
}

function runNode(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('the price refresh ignores the project file', () => {
  it("loadRefreshConfig, run from inside a trusted repository: the user's sources, and the project file never read", () => {
    const { repo, env } = setup();
    const cwd = process.cwd();
    process.chdir(repo);
    try {
      const r = loadRefreshConfig(env);
      expect(r.config.sources.map((s) => s.name)).toEqual(['users']);
      expect(r.config.ttlHours).toBe(24);
      expect(r.diagnostics.filter((d) => d.includes('.tiergate.json'))).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it("`tiergate prices refresh --wait` in the repository fetches the user's feed only", async () => {
    const { repo, env } = setup();
    const before = repos.total();
    const r = await runNode([join(root, 'dist/cli.js'), 'prices', 'refresh', '--wait', '--json'], env, repo);
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { sources: { name: string }[] }).sources.map((s) => s.name)).toEqual(['users']);
    expect(repos.total()).toBe(before);
    expect(r.stderr).not.toContain('.tiergate.json');
  });

  it("the detached refresh (dist/refresh.js), started in the repository, fetches the user's feed only", async () => {
    const { repo, env, dir } = setup();
    const before = { users: users.count('/feed'), repos: repos.total() };
    const r = await runNode([join(root, 'dist/refresh.js')], { ...env, TIERGATE_REFRESH_FORCE: '1' }, repo);
    expect(r.status, r.stderr).toBe(0);
    expect(users.count('/feed')).toBe(before.users + 1);
    expect(repos.total()).toBe(before.repos);
    expect(existsSync(join(dir, 'tg', 'data', 'prices', 'users.catalog.json'))).toBe(true);
    const log = join(dir, 'tg', 'data', 'diagnostics.log');
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').not.toContain('.tiergate.json');
  });
});
