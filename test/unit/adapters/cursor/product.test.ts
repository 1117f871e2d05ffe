/**
 * The documented Cursor sequence (preToolUse Task -> subagentStart -> subagentStop) through the built hook and CLI:
 * one dispatch recorded (not two), and the report shows "usage not reported by Cursor", never $0. Documentation-only
 * payloads: no Cursor binary was run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../../..');
beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'hook.cjs')))
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'ignore' });
}, 120_000);

it('a Cursor subagent shows in the report with usage not reported, not as $0', () => {
  const env = {
    PATH: process.env.PATH,
    HOME: mkdtempSync(join(tmpdir(), 'tg-cursor-home-')),
    TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-cursor-product-')),
  };
  const answers = ['preToolUse.task', 'subagentStart.basic', 'subagentStop.completed'].map((f) => {
    const r = spawnSync(process.execPath, [join(root, 'dist', 'hook.cjs'), 'cursor', f.split('.')[0]!], {
      input: readFileSync(join(root, 'test/fixtures/cursor', `${f}.json`)),
      env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout);
  });
  expect(answers).toEqual([{ permission: 'allow' }, { permission: 'allow' }, {}]);
  const report = JSON.parse(
    spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'report', '--by', 'harness', '--json'], {
      env,
      encoding: 'utf8',
    }).stdout,
  );
  const row = report.rows.find((r: { group: string }) => r.group === 'cursor');
  expect(row).toMatchObject({ runs: 1, dispatches: 1, completed: 1, usageNotReported: true, cost: { usd: null } });
  expect(row.models).toEqual([{ requested: 'claude-haiku-4-5', served: null, runs: 1 }]);
  const table = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'report', '--by', 'harness'], {
    env,
    encoding: 'utf8',
  }).stdout;
  expect(table).toContain('usage not reported by Cursor');
  expect(table).not.toMatch(/\$0(\.0+)?\b/);
});
