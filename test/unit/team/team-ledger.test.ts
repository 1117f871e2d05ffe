/**
 * The team ledger end to end against a throwaway PostgreSQL (test/support/pg-cluster.ts): two people's data dirs push
 * their ledgers twice, and the team report equals the sum of their local reports, row for row, with no duplicates;
 * a settled pending completion, a correction found ignored and a superseded row are updated, not duplicated; a server
 * killed mid-push loses nothing; a wrong password or an unreachable server is one line and exit 1 with the local
 * ledger untouched; a hostile person label stays data; a read-only role reports but cannot push.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.js';
import { ReportSchema, type ReportBy, type ReportRow } from '../../../src/contracts/report.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { limitRows } from '../../../src/report/limit.js';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import { pushLedger } from '../../../src/team/push.js';
import { capabilityFor } from '../../../src/adapters/capabilities.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { routeDispatch } from '../../../src/runtime/dispatch.js';
import { stoppedRecord } from '../../../src/runtime/child-stop.js';
import { connectTeam } from '../../../src/team/pg.js';
import { migrateTeam, requireTeamSchema, TEAM_MIGRATIONS, TEAM_SCHEMA_VERSION } from '../../../src/team/schema.js';
import { readPushStatus } from '../../../src/team/status.js';
import { pgAvailable, startCluster, type PgCluster } from '../../support/pg-cluster.js';
import { runCaptured } from '../../support/cli.js';
import { RUNS } from '../report/seed.js';
import {
  byGroup,
  grantRoles,
  home,
  ledgerFingerprint,
  localReport,
  mergedByGroup,
  push,
  removeHomes,
  scalars,
  seed,
  sumScalars,
  teamDatabase,
  teamInit,
  teamReport,
  withLedger,
  type Home,
} from './helpers.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-25T09:00:00Z');
const LOCAL_BY = ['agent', 'session', 'tier', 'model', 'harness', 'day'] as const;

describe.skipIf(!pgAvailable())('team ledger in PostgreSQL', () => {
  let cluster: PgCluster;
  let urls: { admin: string; pusher: string; reader: string };
  let alice: Home;
  let bob: Home;

  beforeAll(async () => {
    // A password must come from where each test puts it, never from the environment the suite runs in.
    delete process.env.PGPASSWORD;
    cluster = await startCluster();
    urls = await teamDatabase(cluster, 'team');
    const init = await teamInit(home(), urls.admin);
    expect(init.code, init.err).toBe(0);
    expect(init.out).toMatch(new RegExp(`schema 'tiergate' created \\(version ${TEAM_SCHEMA_VERSION}\\)`));
    await grantRoles(cluster, 'team');
    alice = home({ user: 'alice', url: urls.pusher });
    bob = home({ user: 'bob', url: urls.pusher });
    seed(alice);
    // Bob: another mix (shifted a day, fewer runs), the same local call ids: they must not meet Alice's rows.
    seed(
      bob,
      RUNS.slice(0, 9).map((r) => ({ ...r, day: r.day + 1 })),
    );
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    removeHomes();
  });

  it('team init is versioned and safe to run again', async () => {
    const again = await teamInit(home(), urls.admin, ['--json']);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({
      from: TEAM_SCHEMA_VERSION,
      to: TEAM_SCHEMA_VERSION,
      schema: 'tiergate',
    });
    const versions = await cluster.sql('SELECT version FROM tiergate.schema_version ORDER BY version', [], 'team');
    expect(versions.rows.map((r) => r.version)).toEqual(TEAM_MIGRATIONS.map((_, i) => i + 1));
  });

  it('migrations: an older schema is upgraded by the next migration only; a newer one is refused (upgrade tiergate), an absent one names team init', async () => {
    await cluster.sql('CREATE DATABASE upgrade');
    const url = cluster.url(undefined, undefined, 'upgrade');
    const db = await connectTeam(url);
    try {
      expect(await migrateTeam(db, TEAM_MIGRATIONS.slice(0, 1))).toEqual({ from: 0, to: 1 });
      const next = [...TEAM_MIGRATIONS, 'CREATE TABLE tiergate.added_later (x int)'];
      expect(await migrateTeam(db, next)).toEqual({ from: 1, to: TEAM_SCHEMA_VERSION + 1 });
      // Migration 2: the rollups no longer count a harness named in SQL (reports take the registry's list).
      const named = await db.query(
        "SELECT table_name FROM information_schema.columns WHERE table_schema = 'tiergate' AND column_name = 'cursor_runs'",
      );
      expect(named).toEqual([]);
      const fns = await db.query<{ src: string }>(
        "SELECT prosrc AS src FROM pg_proc WHERE pronamespace = 'tiergate'::regnamespace",
      );
      expect(fns.map((f) => f.src).join('\n')).not.toMatch(/cursor/);
      expect(await migrateTeam(db, next)).toEqual({ from: TEAM_SCHEMA_VERSION + 1, to: TEAM_SCHEMA_VERSION + 1 });
      await expect(requireTeamSchema(db)).rejects.toThrow(
        new RegExp(`newer than this tiergate knows \\(${TEAM_SCHEMA_VERSION}\\): upgrade tiergate`),
      );
    } finally {
      await db.end();
    }
    const h = home({ user: 'old-tiergate' });
    seed(h, RUNS.slice(0, 1));
    const newer = await push(h, [], url);
    expect(newer.code).toBe(1);
    expect(newer.err).toMatch(/^tiergate push: .*upgrade tiergate\n$/);
    await cluster.sql('CREATE DATABASE empty_db');
    const none = await push(h, [], cluster.url(undefined, undefined, 'empty_db'));
    expect(none.err).toMatch(/no tiergate schema yet: run `tiergate team init`/);
  });

  it('two people push twice: the team report is the sum of both local reports, for every grouping, no duplicates', async () => {
    for (const h of [alice, bob, alice, bob]) {
      const r = await push(h);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe('');
    }
    // The second push of each sent nothing.
    const again = await push(alice, ['--json']);
    // Nothing changed since: the change counter gives the push no row to read, let alone send.
    expect(JSON.parse(again.out)).toMatchObject({
      completions: { read: 0, sent: 0 },
      dispatches: { read: 0, sent: 0 },
      user: 'alice',
    });

    const localRows = (h: Home) =>
      withLedger(h, (db) => (db.prepare('SELECT COUNT(*) AS n FROM completions').get() as { n: number }).n);
    const remote = await cluster.sql(
      'SELECT COUNT(*)::int AS n, COUNT(DISTINCT (origin, key))::int AS k FROM tiergate.completions',
      [],
      'team',
    );
    expect(remote.rows[0]).toEqual({ n: localRows(alice) + localRows(bob), k: localRows(alice) + localRows(bob) });

    for (const by of LOCAL_BY) {
      const team = await teamReport(urls.reader, { by });
      const locals = [localReport(alice, { by }), localReport(bob, { by })];
      expect(byGroup(team), `--by ${by}`).toEqual(mergedByGroup(locals));
      expect(scalars(team.totals), `--by ${by} totals`).toEqual(sumScalars(locals.map((l) => l.totals)));
    }
    // --by session: each session's project and last activity, as the local ledger's sessions table has them.
    const sessions = (
      r: Awaited<ReturnType<typeof teamReport>>,
    ): Record<string, [string | null | undefined, string | null | undefined]> =>
      Object.fromEntries(r.rows.map((row) => [String(row.group), [row.project, row.lastActivity]]));
    const teamSessions = sessions(await teamReport(urls.reader, { by: 'session' }));
    for (const h of [alice, bob]) {
      for (const [id, [project, last]] of Object.entries(sessions(localReport(h, { by: 'session' })))) {
        expect(teamSessions[id]![0]).toBe(project);
        expect(Date.parse(teamSessions[id]![1]!)).toBeGreaterThanOrEqual(Date.parse(last!));
      }
    }
    const byUser = await teamReport(urls.reader, { by: 'user' });
    expect(byGroup(byUser)).toEqual({
      alice: scalars(localReport(alice, { by: 'harness' }).totals),
      bob: scalars(localReport(bob, { by: 'harness' }).totals),
    });
    expect(byUser.source).toBe('team');
  });

  it('filters: mid-day --since/--until, --harness, --session, --project, --user, --origin match the local reports', async () => {
    const since = T0 + 1.5 * DAY;
    const until = T0 + 3.6 * DAY;
    const cases: { q: Record<string, unknown>; who: Home[] }[] = [
      { q: { since, until }, who: [alice, bob] },
      { q: { since }, who: [alice, bob] },
      { q: { until }, who: [alice, bob] },
      { q: { harness: 'claude', since: T0 + 0.5 * DAY }, who: [alice, bob] },
      { q: { session: 'claude-session-b' }, who: [alice, bob] },
      { q: { project: '/work' }, who: [alice, bob] },
      // A directory, not a string prefix: nothing is under /wor.
      { q: { project: '/wor' }, who: [alice, bob] },
    ];
    for (const { q, who } of cases) {
      for (const by of ['agent', 'day', 'session'] as ReportBy[]) {
        const team = await teamReport(urls.reader, { by, ...q });
        const locals = who.map((h) => localReport(h, { by: by as 'agent', ...q }));
        expect(byGroup(team), `${JSON.stringify(q)} --by ${by}`).toEqual(locals.length ? mergedByGroup(locals) : {});
      }
    }
    const aliceOnly = await teamReport(urls.reader, { by: 'harness', user: 'alice' });
    expect(byGroup(aliceOnly)).toEqual(byGroup(localReport(alice, { by: 'harness' })));
    const origin = readPushStatus(bob.env).origin!;
    const bobOnly = await teamReport(urls.reader, { by: 'tier', origin, since });
    expect(byGroup(bobOnly)).toEqual(byGroup(localReport(bob, { by: 'tier', since })));
  });

  it('--by session with a limit: the sessions limitRows keeps, ranked and built in SQL, totals over every session', async () => {
    const cases: Record<string, unknown>[] = [{}, { since: T0 + 1.5 * DAY }, { user: 'alice' }, { harness: 'claude' }];
    let compared = 0;
    for (const q of cases) {
      const full = await teamReport(urls.reader, { by: 'session', ...q });
      const n = full.rows.length;
      expect(n, JSON.stringify(q)).toBeGreaterThan(2);
      const key = (i: number) => {
        const [r] = limitRows({ ...full, rows: [full.rows[i]!] }, 1).rows;
        return `${r!.cost.pico}|${r!.runs}`;
      };
      const ranked = limitRows(full, n).rows;
      for (const limit of [1, 2, n - 1, n, n + 5]) {
        const want = limitRows(full, limit);
        const got = await teamReport(urls.reader, { by: 'session', ...q, limit });
        expect(got.omittedRows, `${JSON.stringify(q)} --limit ${limit}`).toBe(want.omittedRows);
        // The same totals; model pairs tied on runs and requested model may come in either order.
        expect(samePairs(got.totals)).toEqual(samePairs(full.totals));
        // Sessions tied on cost and runs at the cut may be kept either way; elsewhere the rows are the same.
        const tied = limit < n && key(full.rows.indexOf(ranked[limit - 1]!)) === key(full.rows.indexOf(ranked[limit]!));
        if (tied) continue;
        expect(got.rows.map(samePairs), `${JSON.stringify(q)} --limit ${limit}`).toEqual(want.rows.map(samePairs));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(8);
    // Through the CLI: --json and --csv with --limit, and the table's default, are those rows.
    const cli = (args: string[]) =>
      runCaptured(main, ['report', '--team', '--by', 'session', ...args], {
        ...alice.env,
        TIERGATE_TEAM_URL: urls.reader,
      });
    const json = ReportSchema.parse(JSON.parse((await cli(['--json', '--limit', '2'])).out));
    const direct = await teamReport(urls.reader, { by: 'session', limit: 2 });
    expect(json.rows.map((r) => r.group)).toEqual(direct.rows.map((r) => r.group));
    expect(json.omittedRows).toBe(direct.omittedRows);
    // One line per run of the kept sessions (issue 29), the totals line with --total.
    const csv = (await cli(['--csv', '--limit', '2'])).out.trim().split('\r\n');
    expect(csv).toHaveLength(1 + json.rows.reduce((a, r) => a + r.runs, 0));
    const withTotal = (await cli(['--csv', '--limit', '2', '--total'])).out.trim().split('\r\n');
    expect(withTotal).toHaveLength(csv.length + 1);
    expect(withTotal.at(-1)).toMatch(/^total,/);
    // The table: 50 rows by default (all of these), --limit N says how many more there are.
    const all = await cli([]);
    expect(all.code, all.err).toBe(0);
    expect(all.out).not.toMatch(/more session rows not shown/);
    const two = await cli(['--limit', '2']);
    expect(two.out).toContain(`${direct.omittedRows} more session rows not shown`);
  });

  it('a pending completion settled after a push, a correction found ignored and a superseded row are updated, not added', async () => {
    const before = await teamReport(urls.reader, { by: 'harness' });
    expect(before.totals.pending).toBe(1);
    withLedger(alice, (db) => {
      db.prepare(`UPDATE completions SET status = 'ok', input = 1000, output = 100, cache_read = 0, cache_write_5m = 0,
        cache_write_1h = 0, served_model = 'claude-haiku-4-5' WHERE status = 'pending'`).run();
      db.prepare("UPDATE dispatches SET action = 'correct', enforcement = 'ignored' WHERE call_id = 'call-0'").run();
      // Superseded: the child's row goes, its dispatch is open again (store.ts supersedeWholeChild does this).
      const gone = db.prepare("SELECT id FROM completions WHERE call_id = 'call-5'").get() as { id: number };
      db.prepare('UPDATE dispatches SET completion_id = NULL WHERE completion_id = ?').run(gone.id);
      db.prepare('DELETE FROM completions WHERE id = ?').run(gone.id);
    });
    const r = await push(alice, ['--json']);
    expect(r.code, r.err).toBe(0);
    const sent = JSON.parse(r.out);
    // The settled row, the re-priced one after the drain, the ignored correction's completion and dispatch, the reopened one.
    expect(sent.completions.sent).toBeGreaterThanOrEqual(2);
    expect(sent.completions.deleted).toBe(1);
    expect(sent.dispatches.sent).toBe(2);

    const after = await teamReport(urls.reader, { by: 'harness' });
    const locals = [localReport(alice, { by: 'harness' }), localReport(bob, { by: 'harness' })];
    expect(scalars(after.totals)).toEqual(sumScalars(locals.map((l) => l.totals)));
    expect(after.totals.pending).toBe(0);
    expect(after.totals.correctionsNotHonoured).toBe(1);
    // The correction's saving, priced when pushed as the local report prices it now.
    expect(after.totals.corrected).toBe(1);
    expect(after.totals.savedRuns).toBe(1);
    expect(after.totals.saved.pico).not.toBeNull();
    expect(byGroup(after)).toEqual(mergedByGroup(locals));
    const dup = await cluster.sql(
      'SELECT COUNT(*)::int - COUNT(DISTINCT (origin, key))::int AS d FROM tiergate.completions',
      [],
      'team',
    );
    expect(dup.rows[0].d).toBe(0);

    // Prices change (an override of the model the correction is measured against): no ledger row changes, but the
    // pushed saving was priced with the old price, so the next push sends the corrected run again.
    const baseline = withLedger(alice, (db) =>
      db
        .prepare("SELECT COALESCE(requested_model, parent_model) AS m FROM dispatches WHERE action = 'correct'")
        .get<{ m: string }>(),
    )!.m;
    const canonical = loadPricer(alice.env).identify!(baseline, 'claude').id!;
    writeFileSync(
      join(alice.env.TIERGATE_HOME!, 'config', 'config.json'),
      JSON.stringify({ team: { user: 'alice' }, priceOverrides: { [canonical]: { input: '500', output: '900' } } }),
    );
    clearRuntimeCache(); // a CLI process reads the policy once; this one has read it before
    const repriced = JSON.parse((await push(alice, ['--json'])).out);
    expect(repriced.completions.sent).toBe(1);
    const cheaper = await teamReport(urls.reader, { by: 'harness' });
    const nowLocal = [localReport(alice, { by: 'harness' }), localReport(bob, { by: 'harness' })];
    expect(cheaper.totals.saved.pico).not.toBe(after.totals.saved.pico);
    expect(scalars(cheaper.totals)).toEqual(sumScalars(nowLocal.map((l) => l.totals)));
    // And once sent, not again.
    expect(JSON.parse((await push(alice, ['--json'])).out).completions).toMatchObject({ read: 0, sent: 0 });
  });

  it('report --team through the CLI: --json (the report contract), --csv, --html and the table, with --by user; a read-only role', async () => {
    const cli = (args: string[], url = urls.reader) =>
      runCaptured(main, ['report', '--team', ...args], { ...alice.env, TIERGATE_TEAM_URL: url });
    const json = await cli(['--json', '--by', 'user']);
    expect(json.code, json.err).toBe(0);
    const report = ReportSchema.parse(JSON.parse(json.out));
    expect(report).toMatchObject({ source: 'team', by: 'user', filters: { timeZone: 'UTC', user: null } });
    expect(report.rows.map((r) => r.group)).toEqual(expect.arrayContaining(['alice', 'bob']));
    const direct = await teamReport(urls.reader, { by: 'user' });
    expect(report.totals).toEqual(direct.totals);
    const since = new Date(T0 + DAY).toISOString();
    const filtered = ReportSchema.parse(
      JSON.parse((await cli(['--json', '--by', 'day', '--since', since, '--user', 'bob'])).out),
    );
    expect(byGroup(filtered)).toEqual(byGroup(localReport(bob, { by: 'day', since: T0 + DAY })));
    const csv = await cli(['--csv', '--by', 'harness']);
    expect(csv.code, csv.err).toBe(0);
    expect(csv.out.split('\r\n')[0]).toMatch(/^group,harness,session,agent,requested_model,served_model,/);
    expect(csv.out).toContain('\r\nclaude,');
    const table = await cli(['--by', 'user']);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/team ledger \(PostgreSQL\)/);
    expect(table.out).toMatch(/alice/);
    const file = join(alice.dir, 'team.html');
    const html = await cli(['--html', file, '--by', 'agent']);
    expect(html.code, html.err).toBe(0);
    const page = readFileSync(file, 'utf8');
    expect(page).toContain('team ledger');
    const embedded = JSON.parse(
      /<script type="application\/json" id="tiergate-report">([\s\S]*?)<\/script>/.exec(page)![1]!,
    );
    expect(embedded.totals.runs).toBe(direct.totals.runs);
    // Usage: --by user and --user/--origin belong to --team; a wrong password is one line, exit 1.
    const local = await runCaptured(main, ['report', '--by', 'user'], alice.env);
    expect(local.code).toBe(2);
    expect(local.err.trim().split('\n')).toHaveLength(1);
    expect((await runCaptured(main, ['report', '--user', 'bob'], alice.env)).code).toBe(2);
    const wrong = await cli(['--json'], cluster.url('tg_reader', 'wrong-Pass-1', 'team'));
    expect(wrong.code).toBe(1);
    expect(wrong.out).toBe('');
    expect(wrong.err.trim().split('\n')).toEqual([
      expect.stringMatching(/^tiergate report: .*password authentication failed for user "tg_reader"/),
    ]);
    expect(wrong.err).not.toContain('wrong-Pass-1');
    const none = await runCaptured(main, ['report', '--team'], { ...alice.env, TIERGATE_TEAM_URL: '' });
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/^tiergate report: no team ledger configured/);
  });

  it('a wrong password, a closed port or a read-only role: one line, exit 1, the local ledger untouched', async () => {
    const carol = home({ user: 'carol' });
    seed(carol);
    const untouched = ledgerFingerprint(carol);
    const badPassword = 'not-the-Secret-9';
    const port = cluster.port;
    const cases = [
      {
        url: cluster.url('tg_pusher', badPassword, 'team'),
        line: /password authentication failed for user "tg_pusher"/,
      },
      // Nothing listens on port 1 of the loopback.
      {
        url: `postgres://tg_pusher:${badPassword}@127.0.0.1:1/team`,
        line: /cannot connect to 127\.0\.0\.1:1\/team: connection refused/,
      },
      { url: urls.reader, line: /permission denied for table/ },
      { url: cluster.url('tg_pusher', 'push-pw', 'no_such_db'), line: /database "no_such_db" does not exist/ },
    ];
    for (const c of cases) {
      const r = await push(carol, [], c.url);
      expect(r.code, c.url).toBe(1);
      expect(r.out).toBe('');
      const lines = r.err.trimEnd().split('\n');
      expect(lines, r.err).toHaveLength(1);
      expect(lines[0]).toMatch(/^tiergate push: /);
      expect(lines[0]).toMatch(c.line);
      expect(r.err).not.toContain(badPassword);
      expect(r.err).not.toContain('read-pw');
      if (c.url !== urls.reader) expect(ledgerFingerprint(carol)).toEqual(untouched);
      const status = readPushStatus(carol.env);
      expect(status.lastAttempt).toBe('failed');
      expect(status.lastError).toMatch(c.line);
      expect(JSON.stringify(status)).not.toContain(badPassword);
    }
    expect(port).toBeGreaterThan(0);
    const st = await push(carol, ['--status']);
    expect(st.out).toMatch(/Last successful push: never/);
    expect(st.out).toMatch(/failed: /);
  });

  it('the password from PGPASSWORD or ~/.pgpass (never from a file tiergate writes)', async () => {
    const dana = home({ user: 'dana' });
    seed(dana, RUNS.slice(0, 2));
    const bare = `postgres://tg_pusher@127.0.0.1:${cluster.port}/team`;
    const none = await push(dana, [], bare);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/asks for a password and none was found/);
    const viaEnv = await runWith(dana, { PGPASSWORD: 'push-pw' }, bare);
    expect(viaEnv.code, viaEnv.err).toBe(0);
    const { writeFileSync, readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const pgpass = join(dana.dir, 'pgpass');
    writeFileSync(pgpass, `127.0.0.1:${cluster.port}:team:tg_pusher:push-pw\n`, { mode: 0o600 });
    const viaFile = await runWith(dana, { PGPASSFILE: pgpass }, bare, ['--full']);
    expect(viaFile.code, viaFile.err).toBe(0);
    // Nothing tiergate keeps holds the password.
    const walk = (d: string): string[] =>
      readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
    for (const f of walk(join(dana.dir, 'tg'))) expect(readFileSync(f).includes('push-pw'), f).toBe(false);
  });

  it('the decision record reaches the team ledger: report --team shows the same saving and corrections (issue 29)', async () => {
    const zoe = home({ user: 'zoe', url: urls.pusher });
    writeFileSync(
      join(zoe.dir, 'tg', 'config', 'config.json'),
      JSON.stringify({
        team: { user: 'zoe' },
        priceOverrides: { 'fake/big': { input: '10', output: '50' }, 'fake/parent': { input: '3', output: '15' } },
      }),
    );
    clearRuntimeCache();
    resetSpoolFile();
    const obs: DispatchObservation = {
      kind: 'dispatch',
      harness: 'opencode',
      sessionId: 'Z1',
      callId: 'call-z1',
      parentModel: 'fake/parent',
      parentModelSource: 'chat.params',
      requestedModel: null,
      requestedAgent: 'pricey',
      requestedTier: null,
      agentModel: 'fake/big',
      agentModelFrom: 'opencode.json agent.pricey',
      subagentType: 'pricey',
      capability: { ...capabilityFor('opencode', DEFAULT_POLICY), legalValues: ['tiergate-parent'] },
      candidates: [{ value: 'tiergate-parent', model: 'fake/parent', tier: 'parent' }],
      toolInput: { subagent_type: 'pricey' },
      cwd: null,
      escalationFrom: null,
      at: T0,
    };
    expect(routeDispatch(obs, zoe.env).action).toBe('correct');
    appendSpool(
      {
        type: 'completion',
        observation: {
          kind: 'completion',
          harness: 'opencode',
          sessionId: 'Z1',
          callId: 'call-z1',
          agentId: 'ses_child',
          subagentType: 'tiergate-parent',
          servedModel: 'fake/parent',
          usage: {
            input: 100_000,
            output: 10_000,
            cacheRead: 0,
            cacheWrite5m: 0,
            cacheWrite1h: 0,
            reasoning: 0,
            requests: 1,
          },
          status: 'ok',
          outcome: { result: 'done', verified: 'yes', escalationFrom: null },
          startedAt: T0 + 1,
          endedAt: T0 + 1000,
          usageSource: 'sdk',
          dedupeKey: null,
        },
        transcriptPath: null,
      },
      zoe.env,
    );
    resetSpoolFile();
    const r = await push(zoe);
    expect(r.code, r.err).toBe(0);
    const local = localReport(zoe, { by: 'agent' });
    // By hand: $1.50 on fake/big less $0.45 on fake/parent.
    expect(local.totals.saved.pico).toBe('1050000000000');
    const team = await teamReport(urls.reader, { by: 'agent', user: 'zoe' });
    expect(team.rows.map((x) => [x.group, x.saved.pico, x.correctedTo, x.savedEstimatedRuns])).toEqual([
      ['pricey', '1050000000000', [{ value: 'tiergate-parent', runs: 1 }], 0],
    ]);
    const d = await cluster.sql(
      `SELECT without_model, without_from, decision, to_value, to_model, join_method FROM tiergate.dispatches WHERE user_name = 'zoe'`,
      [],
      'team',
    );
    expect(d.rows).toEqual([
      {
        without_model: 'fake/big',
        without_from: 'harness-config',
        decision: 'correct',
        to_value: 'tiergate-parent',
        to_model: 'fake/parent',
        join_method: 'dispatch-id',
      },
    ]);
    const c = await cluster.sql(
      `SELECT saved_basis, corrected_to, subagent_type, requested_model FROM tiergate.completions WHERE user_name = 'zoe'`,
      [],
      'team',
    );
    expect(c.rows).toEqual([
      {
        saved_basis: 'recorded',
        corrected_to: 'tiergate-parent',
        subagent_type: 'pricey',
        requested_model: 'fake/big',
      },
    ]);
  });

  it('stopped children and limit denials reach the team ledger: counted apart, as the local report does (issue 33)', async () => {
    const yan = home({ user: 'yan', url: urls.pusher });
    clearRuntimeCache();
    resetSpoolFile();
    const who = { harness: 'claude' as const, sessionId: 'Y1', agent: 'general-purpose' };
    appendSpool(stoppedRecord(who, 'agent-y1', null, T0), yan.env);
    appendSpool(
      {
        type: 'dispatch',
        observation: { ...stoppedRecord(who, 'x', null, T0 + 1).observation, callId: 'toolu_y2' },
        decision: { action: 'deny', reason: 'limit-denied', tier: null, effectiveModel: null, catalogVersion: null },
      },
      yan.env,
    );
    resetSpoolFile();
    const r = await push(yan);
    expect(r.code, r.err).toBe(0);
    const local = localReport(yan, { by: 'agent' });
    expect(local.totals).toMatchObject({ runs: 1, dispatches: 1, denied: 1, limitDenied: 1, stopped: 1 });
    const team = await teamReport(urls.reader, { by: 'agent', user: 'yan' });
    expect(team.totals).toMatchObject({ runs: 1, dispatches: 1, denied: 1, limitDenied: 1, stopped: 1 });
  });

  it('asks reach the team ledger: asked and askedRan as the local report counts them, status asked (issue 33)', async () => {
    const zed = home({ user: 'zed', url: urls.pusher });
    clearRuntimeCache();
    resetSpoolFile();
    const who = { harness: 'claude' as const, sessionId: 'Z1', agent: 'general-purpose' };
    const base = stoppedRecord(who, 'x', null, T0).observation;
    const ask = (callId: string, at: number) =>
      appendSpool(
        {
          type: 'dispatch',
          observation: { ...base, callId, at },
          // With its decision record (kind ask), as dispatch.ts writes it: the local ledger joins the ask through it.
          decision: {
            action: 'ask',
            reason: 'budget-asked',
            tier: null,
            effectiveModel: null,
            catalogVersion: null,
            detail: {
              kind: 'ask',
              without: 'claude-sonnet-5-5',
              withoutFrom: 'call',
              withoutSource: null,
              to: null,
              toModel: 'claude-sonnet-5-5',
              withoutRates: null,
              chosenRates: null,
              budget: 'over',
            },
          },
        },
        zed.env,
      );
    ask('toolu_z1', T0);
    ask('toolu_z2', T0 + 10);
    // The first was approved: its child ran and reports under the dispatch's call id.
    appendSpool(
      {
        type: 'completion',
        observation: {
          kind: 'completion',
          harness: 'claude',
          sessionId: 'Z1',
          callId: 'toolu_z1',
          agentId: 'agent-z1',
          subagentType: 'general-purpose',
          servedModel: 'claude-sonnet-5-5',
          usage: { input: 10, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
          status: 'ok',
          outcome: { result: null, verified: null, escalationFrom: null },
          startedAt: T0 + 100,
          endedAt: T0 + 1000,
          usageSource: 'transcript-tail',
          dedupeKey: null,
        },
        transcriptPath: null,
      },
      zed.env,
    );
    resetSpoolFile();
    const r = await push(zed);
    expect(r.code, r.err).toBe(0);
    const local = localReport(zed, { by: 'agent' });
    expect(local.totals).toMatchObject({ runs: 2, dispatches: 2, denied: 0, asked: 2, askedRan: 1 });
    const team = await teamReport(urls.reader, { by: 'agent', user: 'zed' });
    expect(team.totals).toMatchObject({ runs: 2, dispatches: 2, denied: 0, asked: 2, askedRan: 1 });
    const csv = await runCaptured(main, ['report', '--team', '--csv', '--user', 'zed'], {
      ...zed.env,
      TIERGATE_TEAM_URL: urls.reader,
    });
    expect(csv.code, csv.err).toBe(0);
    expect(csv.out).toMatch(/,ask,,,asked,/);
  });

  it('a hostile person label stays data: stored, grouped and shown as written', async () => {
    const label = `Robert'); DROP TABLE tiergate.completions; -- <script>x</script> $1 \\`;
    const eve = home({ user: label, url: urls.pusher });
    seed(eve, RUNS.slice(0, 3));
    // Text COPY escapes (tab, newline, carriage return, backslash) in a session id and a project stay as written.
    const oddSession = 'odd\tsession\nwith\\N and \\ and \r';
    const oddProject = '/work/tab\there\\N';
    withLedger(eve, (db) =>
      db
        .prepare('UPDATE completions SET session_id = ?, project = ? WHERE id = (SELECT MIN(id) FROM completions)')
        .run(oddSession, oddProject),
    );
    const r = await push(eve);
    expect(r.code, r.err).toBe(0);
    const byUser = await teamReport(urls.reader, { by: 'user' });
    expect(byUser.rows.map((row) => row.group)).toContain(label);
    expect(scalars(byUser.rows.find((row) => row.group === label)!)).toEqual(
      scalars(localReport(eve, { by: 'agent' }).totals),
    );
    const only = await teamReport(urls.reader, { by: 'agent', user: label });
    expect(only.totals.runs).toBe(localReport(eve, { by: 'agent' }).totals.runs);
    const sessions = await teamReport(urls.reader, { by: 'session', user: label });
    expect(byGroup(sessions)).toEqual(byGroup(localReport(eve, { by: 'session' })));
    expect(sessions.rows.map((row) => row.group)).toContain(oddSession);
    const odd = await cluster.sql(
      'SELECT project FROM tiergate.completions WHERE session_id = $1',
      [oddSession],
      'team',
    );
    expect(odd.rows).toEqual([{ project: oddProject }]);
    const tables = await cluster.sql(
      "SELECT COUNT(*)::int AS n FROM pg_tables WHERE schemaname = 'tiergate'",
      [],
      'team',
    );
    expect(tables.rows[0].n).toBe(8);
    // A label with a control character is not a valid policy value: the OS user name is used, with a diagnostic.
    const mallory = home({ user: 'ok\u001b[2Jlabel', url: urls.pusher });
    seed(mallory, RUNS.slice(0, 1));
    const m = await push(mallory, ['--json']);
    expect(m.code, m.err).toBe(0);
    expect(JSON.parse(m.out).user).not.toContain('\u001b');
    expect(m.err).toMatch(/invalid 'team'/);
  });

  it('the server killed mid-push: what was committed stays, nothing is lost, the next push completes', async () => {
    const frank = home({ user: 'frank', url: urls.pusher });
    const N = 40_000;
    withLedger(frank, (db) =>
      db.transaction(() => {
        const ins =
          db.prepare(`INSERT INTO completions (id, dedupe_key, harness, session_id, subagent_type, served_model, status,
        input, output, cost_pico, ended_at, day, usage_source) VALUES (?, ?, 'claude', ?, 'Explore', 'claude-haiku-4-5', 'ok', 100, 10, ?, ?, ?, 'bench')`);
        for (let i = 1; i <= N; i++) {
          const at = T0 + (i % 7) * DAY;
          ins.run(i, `claude:agent:f${i}`, `fs${i % 50}`, 1000 + i, at, new Date(at).toISOString().slice(0, 10));
        }
      }),
    );
    const origin = await (async () => {
      const { originId } = await import('../../../src/team/settings.js');
      return originId(frank.env);
    })();
    const running = pushLedger({ env: frank.env, batchSize: 500, drain: false });
    const outcome = running.then(
      () => 'finished',
      (err: Error) => err,
    );
    for (;;) {
      const n = (
        await cluster.sql('SELECT COUNT(*)::int AS n FROM tiergate.completions WHERE origin = $1', [origin], 'team')
      ).rows[0].n;
      if (n >= 2000) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    cluster.kill();
    const err = await outcome;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message.split('\n')).toHaveLength(1);
    expect((err as Error).message).toMatch(/127\.0\.0\.1:\d+\/team/);
    await cluster.restart();
    const kept = (
      await cluster.sql('SELECT COUNT(*)::int AS n FROM tiergate.completions WHERE origin = $1', [origin], 'team')
    ).rows[0].n;
    expect(kept).toBeGreaterThanOrEqual(2000);
    expect(kept).toBeLessThan(N);
    const r = await push(frank, ['--json']);
    expect(r.code, r.err).toBe(0);
    // The next push sends what the first did not commit (and at most the batch cut short again), not everything.
    expect(JSON.parse(r.out).completions.sent).toBeLessThanOrEqual(N - kept + 500);
    const remote = await cluster.sql(
      'SELECT COUNT(*)::int AS n, COUNT(DISTINCT key)::int AS k FROM tiergate.completions WHERE origin = $1',
      [origin],
      'team',
    );
    expect(remote.rows[0]).toEqual({ n: N, k: N });
    const team = await teamReport(urls.reader, { by: 'day', origin });
    expect(byGroup(team)).toEqual(byGroup(localReport(frank, { by: 'day' })));
    expect(readPushStatus(frank.env).lastAttempt).toBe('ok');
  }, 120_000);
});

/** A row with its model pairs in one order (the report sorts them by runs and requested model only). */
function samePairs(r: ReportRow): ReportRow {
  const key = (m: ReportRow['models'][number]) => `${String(m.runs).padStart(12, '0')}|${m.requested}|${m.served}`;
  return { ...r, models: [...r.models].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) };
}

async function runWith(h: Home, extra: Record<string, string>, url: string, args: string[] = []) {
  return push({ ...h, env: { ...h.env, ...extra } }, args, url);
}
