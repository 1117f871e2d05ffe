/**
 * The team password (in team.url of the user policy file) is never written into the data dir nor printed: a session's
 * hooks (SessionStart with the Claude hooks module live: its policy hand-off; a dispatch; SessionEnd: drain and the
 * background push), install, `config check` (both forms, which rewrite the effective file), report, budget, doctor,
 * push and `push --status` run through the built dist/ processes; then every file under the data dir and every
 * command's stdout and stderr is searched for the password, raw and URL-encoded.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutSecrets } from '../../../src/contracts/secrets.js';
import { readPushStatus } from '../../../src/team/status.js';
import { pgAvailable, startCluster, type PgCluster } from '../../support/pg-cluster.js';
import { teamInit, home } from './helpers.js';

const root = join(import.meta.dirname, '../../..');
const SECRET = `Hunt/er2${randomBytes(6).toString('hex')}`;
const FORMS = [SECRET, encodeURIComponent(SECRET), SECRET.split('/')[1]!];

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const leaks = (text: string | Buffer) => FORMS.filter((f) => text.includes(f));

describe('withoutSecrets', () => {
  it('takes the password out of URLs (user part and query) and secret-named keys, and nothing else', () => {
    const policy = {
      team: { url: 'postgres://alice:p%40ss@db:5432/team?sslmode=verify-full&password=q1', user: 'alice' },
      other: ['see postgresql://bob:b0b@h/x and https://x:y@example.com/a', '/path/with:colon@sign'],
      apiKey: 'k-123',
      trustedProjects: ['/home/a/proj'],
      n: 3,
    };
    expect(withoutSecrets(policy)).toEqual({
      team: { url: 'postgres://alice:***@db:5432/team?sslmode=verify-full&password=***', user: 'alice' },
      other: ['see postgresql://bob:***@h/x and https://x:***@example.com/a', '/path/with:colon@sign'],
      apiKey: '***',
      trustedProjects: ['/home/a/proj'],
      n: 3,
    });
    expect(policy.team.url).toContain('p%40ss');
  });
});

describe.skipIf(!pgAvailable())('the team password is never written or printed (dist/)', () => {
  let cluster: PgCluster;
  let url: string;
  beforeAll(async () => {
    cluster = await startCluster();
    await cluster.sql('CREATE DATABASE team');
    await cluster.sql(`CREATE ROLE tg_secret LOGIN SUPERUSER PASSWORD '${SECRET}'`);
    url = `postgres://tg_secret:${encodeURIComponent(SECRET)}@127.0.0.1:${cluster.port}/team`;
    expect((await teamInit(home(), cluster.url(undefined, undefined, 'team'))).code).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('hooks, install, config check, report, budget, doctor, push: no file of the data dir and no output holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-secret-'));
    try {
      const project = join(dir, 'project');
      mkdirSync(project);
      const tg = join(dir, 'tg');
      mkdirSync(join(tg, 'config'), { recursive: true });
      writeFileSync(join(tg, 'config', 'config.json'), JSON.stringify({ team: { url, user: 'sec' } }));
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: join(dir, 'home'),
        TIERGATE_HOME: tg,
        TIERGATE_PRICE_REFRESH: 'off',
        PGPASSFILE: join(dir, 'none'),
      };
      const outputs: { what: string; text: string }[] = [];
      const run = (args: string[], input = '', extra: Record<string, string> = {}) => {
        const r = spawnSync(
          process.execPath,
          args.map((a) => a.replace(/^dist\//, `${root}/dist/`)),
          {
            input,
            env: { ...env, ...extra },
            cwd: project,
            encoding: 'utf8',
            timeout: 60_000,
          },
        );
        outputs.push({ what: args.join(' '), text: `${r.stdout}\n${r.stderr}` });
        return r;
      };
      const payload = (name: string, over: Record<string, unknown> = {}) => {
        const { _meta, ...p } = JSON.parse(readFileSync(join(root, 'test/fixtures/claude', name), 'utf8'));
        void _meta;
        return JSON.stringify({ ...p, cwd: project, ...over });
      };

      expect(
        run(['dist/hook.cjs', 'claude', 'SessionStart'], payload('SessionStart.basic.json'), {
          TIERGATE_MODULE_LIVE: '1',
        }).status,
      ).toBe(0);
      expect(walk(join(tg, 'data')).some((f) => f.includes('claude-module') && f.includes('policy-'))).toBe(true);
      expect(run(['dist/hook.cjs', 'claude', 'PreToolUse'], payload('PreToolUse.parent-sonnet.json')).status).toBe(0);
      expect(run(['dist/hook.cjs', 'claude', 'SubagentStop'], payload('SubagentStop.background.json')).status).toBe(0);
      run(['dist/cli.js', 'install', 'cursor', 'opencode', 'pi']);
      run(['dist/cli.js', 'config', 'check']);
      run(['dist/cli.js', 'config', 'check', '--json']);
      expect(readFileSync(join(tg, 'data', 'effective.json'), 'utf8')).toContain('tg_secret:***@127.0.0.1');
      for (const args of [['report'], ['report', '--json'], ['budget'], ['doctor'], ['doctor', '--json']])
        run(['dist/cli.js', ...args]);
      expect(run(['dist/cli.js', 'push']).status).toBe(0);
      // A push that fails, with the password in its message's reach (a wrong database).
      const bad = run(['dist/cli.js', 'push'], '', { TIERGATE_TEAM_URL: url.replace(/\/team$/, '/nodb') });
      expect(bad.status).toBe(1);
      // SessionEnd: the drain and the background push (its result in the push status).
      expect(run(['dist/hook.cjs', 'claude', 'SessionEnd'], payload('SessionEnd.basic.json')).status).toBe(0);
      await expect
        .poll(() => readPushStatus(env).lastAttempt === 'ok' && readPushStatus(env).background, { timeout: 30_000 })
        .toBe(true);
      run(['dist/cli.js', 'push', '--status']);
      run(['dist/cli.js', 'push', '--status', '--json']);
      run(['dist/cli.js', 'uninstall', 'cursor', 'opencode', 'pi']);

      const files = walk(join(tg, 'data'));
      expect(files.length).toBeGreaterThan(5);
      for (const f of files) expect(leaks(readFileSync(f)), f).toEqual([]);
      for (const o of outputs) expect(leaks(o.text), o.what).toEqual([]);
      // The home (install's edits of the harness files) holds none either.
      for (const f of walk(join(dir, 'home'))) expect(leaks(readFileSync(f)), f).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
