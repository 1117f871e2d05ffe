/**
 * One bad row never stops the team ledger (issue 28 item 4). A subagent name and a call id holding NUL and a lone
 * surrogate (the model writes the name) go through the real hook into the ledger cleaned; a ledger written before
 * that (NUL already stored) is cleaned on the way out; and rows the server still refuses (a value its column type cannot
 * hold) are set aside with a diagnostic while every other row goes in, shown by `push --status`, not tried again until
 * they change, and tried again by --full.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_TEXT_MAX, ledgerText } from '../../../src/observer/ledger/text.js';
import { originId } from '../../../src/team/settings.js';
import { readPushStatus } from '../../../src/team/status.js';
import { pgAvailable, startCluster, type PgCluster } from '../../support/pg-cluster.js';
import { grantRoles, home, push, removeHomes, teamDatabase, teamInit, withLedger, type Home } from './helpers.js';

const root = join(import.meta.dirname, '../../..');
const NUL_NAME = 'Expl\u0000ore\ud800x';
const CLEAN_NAME = 'Expl\ufffdore\ufffdx';

/** A Claude Code dispatch whose subagent name and tool_use_id hold NUL and a lone surrogate, through dist/hook.cjs. */
function hostileDispatch(h: Home, project: string): void {
  const { _meta, ...p } = JSON.parse(readFileSync(join(root, 'test/fixtures/claude/PreToolUse.basic.json'), 'utf8'));
  void _meta;
  const payload = {
    ...p,
    cwd: project,
    tool_use_id: 'toolu_\u0000nul',
    tool_input: { ...p.tool_input, subagent_type: NUL_NAME },
  };
  const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'claude', 'PreToolUse'], {
    input: JSON.stringify(payload),
    env: { PATH: process.env.PATH ?? '', ...h.env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const report = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'report', '--json'], {
    env: { PATH: process.env.PATH ?? '', ...h.env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(report.status, report.stderr).toBe(0);
}

afterAll(() => removeHomes());

describe('text at the ledger boundary', () => {
  it('ledgerText: NUL and lone surrogates become U+FFFD, pairs stay, the length is capped (never inside a pair)', () => {
    expect(ledgerText(NUL_NAME)).toBe(CLEAN_NAME);
    expect(ledgerText('a\udc00b\ud83d\ude00')).toBe('a\ufffdb\ud83d\ude00');
    expect(ledgerText('plain')).toBe('plain');
    expect(ledgerText('y'.repeat(100_000))).toHaveLength(LEDGER_TEXT_MAX);
    const pairAtCut = `${'z'.repeat(LEDGER_TEXT_MAX - 1)}\ud83d\ude00`;
    expect(ledgerText(pairAtCut)).toBe('z'.repeat(LEDGER_TEXT_MAX - 1));
  });

  it('a dispatch named with NUL and a lone surrogate is stored cleaned by the hook and the drain (no NUL in the ledger)', () => {
    const h = home({ user: 'nul' });
    hostileDispatch(h, h.dir);
    withLedger(h, (db) => {
      const rows = db
        .prepare('SELECT subagent_type, call_id, dedupe_key FROM dispatches')
        .all<{ subagent_type: string; call_id: string; dedupe_key: string }>();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.subagent_type).toBe(CLEAN_NAME);
      expect(rows[0]!.call_id).toBe('toolu_\ufffdnul');
      expect(rows[0]!.dedupe_key).not.toContain('\u0000');
    });
  });
});

describe.skipIf(!pgAvailable())('rows the team database refuses', () => {
  let cluster: PgCluster;
  let urls: Awaited<ReturnType<typeof teamDatabase>>;
  beforeAll(async () => {
    cluster = await startCluster();
    urls = await teamDatabase(cluster, 'team');
    expect((await teamInit(home(), urls.admin)).code).toBe(0);
    await grantRoles(cluster, 'team');
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('a NUL subagent name from the hook: push and push --full succeed, the name lands as U+FFFD', async () => {
    const h = home({ user: 'nul-hook', url: urls.pusher });
    hostileDispatch(h, h.dir);
    for (const args of [[], ['--full']]) {
      const r = await push(h, ['--json', ...args]);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out).dispatches.read).toBe(1);
    }
    const team = await cluster.sql(
      'SELECT subagent_type FROM tiergate.dispatches WHERE origin = $1',
      [originId(h.env)],
      'team',
    );
    expect(team.rows).toEqual([{ subagent_type: CLEAN_NAME }]);
  });

  it('an old ledger holding NUL, and rows the server refuses: set aside with a diagnostic, the rest go in', async () => {
    const h = home({ user: 'refused', url: urls.pusher });
    const N = 25_000;
    const day = '2026-11-01';
    const t = Date.parse(`${day}T10:00:00Z`);
    withLedger(h, (db) =>
      db.transaction(() => {
        const c = db.prepare(`INSERT INTO completions (id, dedupe_key, harness, session_id, subagent_type, served_model,
          status, input, output, cost_pico, ended_at, day, usage_source) VALUES (?, ?, 'claude', ?, ?, 'claude-haiku-4-5',
          'ok', 100, 10, ?, ?, ?, 'bench')`);
        for (let i = 1; i <= N; i++) {
          // Written as a tiergate before the write-side cleaning would have: NUL in a name, a session and a key.
          const nul = i % 1000 === 17;
          c.run(
            i,
            nul ? `claude:agent:r${i}\u0000` : `claude:agent:r${i}`,
            nul ? 's\u0000' : 's',
            nul ? 'Expl\u0000ore' : 'Explore',
            // Values the team's column types cannot hold: a date that is none, a cost that is no number.
            i === 5_000 ? 'abc' : 1000,
            t + i,
            i === 12_345 ? 'not-a-day' : day,
          );
        }
        const d =
          db.prepare(`INSERT INTO dispatches (dedupe_key, harness, session_id, at, project, subagent_type, action,
          source) VALUES (?, 'claude', 's', ?, ?, 'Explore', 'allow', 'spool')`);
        for (let i = 1; i <= 50; i++) d.run(`claude:call:d${i}`, i === 20 ? 'x' : t + i, i === 30 ? '/p\u0000q' : '/p');
      }),
    );
    const origin = originId(h.env);
    const r = await push(h, ['--json', '--no-drain']);
    expect(r.code, r.err).toBe(0);
    const sent = JSON.parse(r.out);
    expect(sent.completions).toMatchObject({ read: N, sent: N - 2, setAside: 2 });
    expect(sent.dispatches).toMatchObject({ read: 50, sent: 49, setAside: 1 });
    expect(sent.aside.rows).toBe(3);
    const count = async (table: string) =>
      (await cluster.sql(`SELECT COUNT(*)::int AS n FROM tiergate.${table} WHERE origin = $1`, [origin], 'team'))
        .rows[0].n as number;
    expect(await count('completions')).toBe(N - 2);
    expect(await count('dispatches')).toBe(49);
    const cleaned = await cluster.sql(
      "SELECT COUNT(*)::int AS n FROM tiergate.completions WHERE origin = $1 AND subagent_type = 'Expl\ufffdore' AND session_id = 's\ufffd' AND key LIKE '%\ufffd'",
      [origin],
      'team',
    );
    expect(cleaned.rows[0].n).toBe(25);
    expect(
      (
        await cluster.sql(
          "SELECT project FROM tiergate.dispatches WHERE origin = $1 AND key = 'claude:call:d30'",
          [origin],
          'team',
        )
      ).rows,
    ).toEqual([{ project: '/p\ufffdq' }]);

    // Shown by --status (what, which row, the server's error) and in the diagnostic log.
    const status = await push(h, ['--status']);
    expect(status.out).toMatch(/Set aside: 3 rows the server refused/);
    expect(status.out).toContain('completions claude:agent:r5000: ');
    expect(status.out).toContain('completions claude:agent:r12345: ');
    expect(status.out).toContain('dispatches claude:call:d20: ');
    expect(status.out).toMatch(/invalid input syntax for type (bigint|date)/);
    expect(readPushStatus(h.env).setAside?.rows).toBe(3);
    const log = readFileSync(join(h.env.TIERGATE_HOME!, 'data', 'diagnostics.log'), 'utf8');
    expect(log.match(/row set aside, the server refused it/g)).toHaveLength(3);

    // Not tried again until they change.
    const again = await push(h, ['--json', '--no-drain']);
    expect(JSON.parse(again.out).completions).toMatchObject({ read: 0, setAside: 0 });
    expect(JSON.parse(again.out).aside.rows).toBe(3);

    // One fixed locally: it goes in and leaves the list; --full tries the other two again (still refused).
    withLedger(h, (db) => db.prepare('UPDATE completions SET day = ? WHERE id = 12345').run(day));
    const fixed = await push(h, ['--json', '--no-drain']);
    expect(JSON.parse(fixed.out).completions).toMatchObject({ read: 1, sent: 1, setAside: 0 });
    expect(JSON.parse(fixed.out).aside.rows).toBe(2);
    const full = await push(h, ['--json', '--no-drain', '--full']);
    expect(full.code, full.err).toBe(0);
    expect(JSON.parse(full.out).completions).toMatchObject({ read: N, sent: 0, setAside: 1 });
    expect(JSON.parse(full.out).aside.rows).toBe(2);
    expect(await count('completions')).toBe(N - 1);
  }, 120_000);
});
