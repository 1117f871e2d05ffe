/**
 * The push a session end starts: triggerPush takes the lock and starts a detached `cli.js push --background` only when
 * a team ledger is configured (never from a project file), once however many sessions end together; through the real
 * hook runner, Claude's and Codex's SessionEnd return at once and the rows reach the team database afterwards; a
 * server that accepts and never answers costs the hook nothing and leaves a failure in the push status.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHook } from '../../../src/wiring/command-hooks.js';
import { readLock } from '../../../src/refresh/lock.js';
import { teamPaths } from '../../../src/team/config.js';
import { readPushStatus } from '../../../src/team/status.js';
import { PUSH_LOCK_ENV, triggerPush } from '../../../src/team/trigger.js';
import { pgAvailable, startCluster, type PgCluster } from '../../support/pg-cluster.js';
import { RUNS } from '../report/seed.js';
import {
  grantRoles,
  home,
  localReport,
  removeHomes,
  scalars,
  seed,
  teamDatabase,
  teamInit,
  teamReport,
} from './helpers.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const payload = (harness: string, cwd: string) => {
  const p = fixturePayload(`${harness}/SessionEnd.basic.json`);
  return { ...p, cwd };
};
const stdin = (p: unknown) => Readable.from([Buffer.from(JSON.stringify(p))]);

/** A stand-in for dist/cli.js: records its arguments and the lock nonce it was handed, then waits to be looked at. */
const scratch: string[] = [];

function standIn(): { script: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tg-standin-'));
  scratch.push(dir);
  const out = join(dir, 'calls.jsonl');
  const script = join(dir, 'cli.mjs');
  writeFileSync(
    script,
    `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(out)}, JSON.stringify({ argv: process.argv.slice(2), nonce: process.env.${PUSH_LOCK_ENV} ?? null }) + '\\n');`,
  );
  return { script, out };
}

afterAll(() => {
  removeHomes();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

describe('triggerPush', () => {
  it('does nothing without a team ledger, and a project file cannot configure one', () => {
    const h = home();
    const project = mkdtempSync(join(tmpdir(), 'tg-proj-'));
    scratch.push(project);
    writeFileSync(
      join(project, '.tiergate.json'),
      JSON.stringify({ team: { url: 'postgres://evil@127.0.0.1:1/x', user: 'x' } }),
    );
    const s = standIn();
    const cwd = process.cwd();
    process.chdir(project);
    try {
      const r = triggerPush(h.env, { script: s.script });
      expect(r).toMatchObject({ started: false, reason: 'off' });
    } finally {
      process.chdir(cwd);
    }
    expect(existsSync(s.out)).toBe(false);
    expect(existsSync(teamPaths(h.env).lock)).toBe(false);
  });

  it('with team.url: one detached push, handed the lock by nonce, no URL on its command line; a second trigger finds it running', async () => {
    const h = home({ team: { url: 'postgres://u:pw-Secret@127.0.0.1:1/team' } });
    const s = standIn();
    const first = triggerPush(h.env, { script: s.script });
    expect(first.started).toBe(true);
    const second = triggerPush(h.env, { script: s.script });
    expect(second).toMatchObject({ started: false, reason: 'running' });
    await expect.poll(() => existsSync(s.out), { timeout: 10_000 }).toBe(true);
    const calls = readFileSync(s.out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { argv: string[]; nonce: string });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.argv.slice(-2)).toEqual(['push', '--background']);
    expect(calls[0]!.argv.join(' ')).not.toContain('pw-Secret');
    expect(calls[0]!.nonce).toBe(readLock(teamPaths(h.env).lock)?.nonce);
  });
});

describe.skipIf(!pgAvailable())('a session end pushes in the background (dist/cli.js)', () => {
  let cluster: PgCluster;
  let urls: Awaited<ReturnType<typeof teamDatabase>>;
  let silent: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    if (!existsSync(join(root, 'dist/cli.js'))) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')]);
    cluster = await startCluster();
    urls = await teamDatabase(cluster, 'team');
    expect((await teamInit(home(), urls.admin)).code).toBe(0);
    await grantRoles(cluster, 'team');
    // Accepts connections and never says a word: a hung server or a black-holing proxy.
    silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    silent?.close();
    await cluster?.stop();
  });

  for (const harness of ['claude', 'codex'] as const) {
    it(`${harness}: SessionEnd returns at once; the detached push lands the ledger in the team database`, async () => {
      const h = home({ team: { url: urls.pusher, user: `bg-${harness}` } });
      seed(h, RUNS.slice(0, 5));
      mkdirSync(join(h.dir, 'proj'), { recursive: true });
      const t0 = Date.now();
      const out = await runHook(harness, 'SessionEnd', stdin(payload(harness, join(h.dir, 'proj'))), {
        ...h.env,
        PATH: process.env.PATH ?? '',
      });
      expect(out.failed).toBeNull();
      expect(Date.now() - t0).toBeLessThan(3000);
      await expect.poll(() => readPushStatus(h.env).lastAttempt, { timeout: 30_000 }).toBe('ok');
      expect(readPushStatus(h.env).background).toBe(true);
      await expect.poll(() => existsSync(teamPaths(h.env).lock), { timeout: 10_000 }).toBe(false);
      const team = await teamReport(urls.reader, { by: 'agent', user: `bg-${harness}` });
      expect(scalars(team.totals)).toEqual(scalars(localReport(h, { by: 'agent' }).totals));
    }, 60_000);
  }

  it('a server that never answers: the hook returns at once, the push gives up at its connect timeout and says so', async () => {
    const port = (silent.address() as { port: number }).port;
    const h = home({ team: { url: `postgres://u:pw-Secret@127.0.0.1:${port}/team?connect_timeout=2`, user: 'hung' } });
    seed(h, RUNS.slice(0, 2));
    const t0 = Date.now();
    const out = await runHook('claude', 'SessionEnd', stdin(payload('claude', h.dir)), {
      ...h.env,
      PATH: process.env.PATH ?? '',
    });
    expect(out.failed).toBeNull();
    expect(Date.now() - t0).toBeLessThan(3000);
    await expect.poll(() => readPushStatus(h.env).lastAttempt, { timeout: 30_000 }).toBe('failed');
    const status = readPushStatus(h.env);
    expect(status.lastError).toBe(`cannot connect to 127.0.0.1:${port}/team: timed out`);
    expect(status.lastSuccessAt).toBeNull();
    expect(readFileSync(join(h.env.TIERGATE_HOME!, 'data', 'diagnostics.log'), 'utf8')).not.toContain('pw-Secret');
    await expect.poll(() => existsSync(teamPaths(h.env).lock), { timeout: 10_000 }).toBe(false);
  }, 60_000);
});
