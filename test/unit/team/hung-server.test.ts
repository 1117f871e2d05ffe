/**
 * A team server that stops answering never hangs a push: one that completes the startup and then never answers a
 * query, and one that hangs mid-push (a proxy to a real server, frozen), each end the push at its time limit with one
 * line, exit 1, and the failure (what and when) in `push --status`; the detached push records its failure too. What
 * was committed before the server hung stays, and the next push completes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../../src/refresh/lock.js';
import { teamPaths } from '../../../src/team/config.js';
import { TeamError } from '../../../src/team/pg.js';
import { pushLedger } from '../../../src/team/push.js';
import { originId } from '../../../src/team/settings.js';
import { readPushStatus } from '../../../src/team/status.js';
import { PUSH_LOCK_ENV } from '../../../src/team/trigger.js';
import { hungServer, type HungServer } from '../../support/hung-pg.js';
import { pgAvailable, startCluster, type PgCluster } from '../../support/pg-cluster.js';
import { RUNS } from '../report/seed.js';
import { grantRoles, home, push, removeHomes, seed, teamDatabase, teamInit, withLedger } from './helpers.js';

const root = join(import.meta.dirname, '../../..');

describe('a server that answers the startup and then nothing', () => {
  let hung: HungServer;
  beforeAll(async () => {
    hung = await hungServer('startup');
  });
  afterAll(async () => {
    await hung.close();
    removeHomes();
  });
  const url = () => `postgres://u:pw-Secret@127.0.0.1:${hung.port}/team`;

  it('push --timeout 2: exit 1 within the limit, one line naming the server and what went unanswered; --status says so', async () => {
    const h = home({ user: 'hung' });
    seed(h, RUNS.slice(0, 2));
    const t0 = Date.now();
    const r = await push(h, ['--timeout', '2'], url());
    const ms = Date.now() - t0;
    expect(r.code, r.err).toBe(1);
    expect(ms).toBeLessThan(6_000);
    expect(ms).toBeGreaterThanOrEqual(1_900);
    expect(r.out).toBe('');
    const lines = r.err.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^tiergate push: 127\\.0\\.0\\.1:${hung.port}/team did not answer within \\d(\\.\\d)? s \\(SET\\)`),
    );
    expect(r.err).not.toContain('pw-Secret');
    const status = readPushStatus(h.env);
    expect(status.lastAttempt).toBe('failed');
    expect(Date.parse(status.lastAttemptAt!)).toBeGreaterThanOrEqual(t0 - 1000);
    expect(status.lastError).toBe(lines[0]!.slice('tiergate push: '.length));
    const shown = await push(h, ['--status'], url());
    expect(shown.out).toContain(`Last attempt: ${status.lastAttemptAt} failed: ${status.lastError}`);
  });

  it('pushLedger with a whole-push limit rejects with a TeamError at the limit (no limit: it waited forever)', async () => {
    const h = home({ user: 'hung2' });
    const t0 = Date.now();
    const err = await pushLedger({ env: { ...h.env, TIERGATE_TEAM_URL: url() }, giveUpAt: t0 + 1500 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TeamError);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('the detached push (--background) gives up at its limit and records the failure, then frees the lock', async () => {
    if (!existsSync(join(root, 'dist/cli.js'))) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')]);
    const h = home({ user: 'hung-bg', team: { url: url(), user: 'hung-bg' } });
    const lock = teamPaths(h.env).lock;
    const { mkdirSync } = await import('node:fs');
    mkdirSync(teamPaths(h.env).dir, { recursive: true });
    const nonce = acquireLock(lock);
    expect(nonce).toBeTruthy();
    const t0 = Date.now();
    const child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'push', '--background', '--timeout', '2'], {
      env: { ...process.env, ...h.env, [PUSH_LOCK_ENV]: nonce! },
      stdio: 'ignore',
    });
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(Date.now() - t0).toBeLessThan(8_000);
    const status = readPushStatus(h.env);
    expect(status).toMatchObject({ lastAttempt: 'failed', background: true });
    expect(status.lastError).toMatch(/did not answer within/);
    expect(existsSync(lock)).toBe(false);
  });
});

describe('a server that accepts and never says a word', () => {
  it('push --timeout 2: the connect gives up within the limit (before the 10 s connect timeout), one line, exit 1, recorded', async () => {
    const silent = await hungServer('silent');
    try {
      const h = home({ user: 'silent' });
      const t0 = Date.now();
      const r = await push(h, ['--timeout', '2'], `postgres://u:pw-Secret@127.0.0.1:${silent.port}/team`);
      expect(r.code).toBe(1);
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(r.err).toBe(`tiergate push: cannot connect to 127.0.0.1:${silent.port}/team: timed out\n`);
      expect(readPushStatus(h.env)).toMatchObject({ lastAttempt: 'failed', lastError: r.err.slice(15, -1) });
    } finally {
      await silent.close();
    }
  });
});

describe.skipIf(!pgAvailable())('a server that hangs mid-push', () => {
  let cluster: PgCluster;
  let urls: Awaited<ReturnType<typeof teamDatabase>>;
  let proxy: HungServer;
  beforeAll(async () => {
    cluster = await startCluster();
    urls = await teamDatabase(cluster, 'team');
    expect((await teamInit(home(), urls.admin)).code).toBe(0);
    await grantRoles(cluster, 'team');
    proxy = await hungServer({ proxyTo: cluster.port });
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await cluster?.stop();
  });

  it('frozen after some batches: the push ends at its limit, the committed batches stay, the next push completes', async () => {
    const h = home({ user: 'frozen' });
    const N = 40_000;
    withLedger(h, (db) =>
      db.transaction(() => {
        const ins =
          db.prepare(`INSERT INTO completions (id, dedupe_key, harness, session_id, subagent_type, served_model, status,
        input, output, cost_pico, ended_at, day, usage_source) VALUES (?, ?, 'claude', 's', 'Explore', 'claude-haiku-4-5', 'ok', 100, 10, 1000, ?, '2026-11-01', 'bench')`);
        for (let i = 1; i <= N; i++) ins.run(i, `claude:agent:z${i}`, Date.parse('2026-11-01T10:00:00Z') + i);
      }),
    );
    const origin = originId(h.env);
    const via = urls.pusher.replace(`:${cluster.port}/`, `:${proxy.port}/`);
    const t0 = Date.now();
    const running = pushLedger({
      env: { ...h.env, TIERGATE_TEAM_URL: via },
      batchSize: 500,
      drain: false,
      giveUpAt: t0 + 8_000,
    }).catch((e: unknown) => e);
    const count = async () =>
      (await cluster.sql('SELECT COUNT(*)::int AS n FROM tiergate.completions WHERE origin = $1', [origin], 'team'))
        .rows[0].n as number;
    while ((await count()) < 1000) await new Promise((r) => setTimeout(r, 5));
    proxy.freeze();
    const frozenAt = Date.now();
    const err = await running;
    expect(err).toBeInstanceOf(TeamError);
    expect((err as Error).message).toMatch(/did not answer within|time limit reached/);
    // The whole-push limit (t0 + 8 s) ends it: a statement's own client-side limit (statement_timeout + grace) is longer.
    expect(Date.now() - t0).toBeLessThan(12_000);
    expect(Date.now() - frozenAt).toBeGreaterThan(0);
    const kept = await count();
    expect(kept).toBeGreaterThanOrEqual(1000);
    expect(kept).toBeLessThan(N);
    const r = await push(h, ['--json'], urls.pusher);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).completions.sent).toBeLessThanOrEqual(N - kept + 500);
    expect(await count()).toBe(N);
  }, 120_000);
});
