/**
 * A data dir that cannot be created or written ends every command at once with one line naming it, exit 1; the hooks
 * still decide (a policy answer) and exit 0. `/proc/nope` once made Node's recursive mkdir loop for ever (80% CPU,
 * `tiergate report` never returned); a regular file in the way and a read-only /sys path fail differently. The
 * built `dist/cli.js` and `dist/hook.cjs`, each under a hard timeout: a hang shows as a killed process, not a stuck run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'tg-unusable-'));
const aFile = join(dir, 'a-file');
writeFileSync(aFile, 'a regular file where a directory should be');

/** [what, the environment naming the data dir, the data dir it names] */
const UNUSABLE: [string, Record<string, string>, string][] = [
  ['TIERGATE_HOME under /proc', { TIERGATE_HOME: '/proc/nope' }, '/proc/nope/data'],
  ['XDG_DATA_HOME under /proc', { XDG_DATA_HOME: '/proc/nope' }, '/proc/nope/tiergate'],
  ['TIERGATE_HOME a regular file', { TIERGATE_HOME: aFile }, `${aFile}/data`],
  ['TIERGATE_HOME in read-only /sys', { TIERGATE_HOME: '/sys/kernel' }, '/sys/kernel/data'],
];

const COMMANDS = [
  ['report'],
  ['budget'],
  ['doctor'],
  ['scan'],
  ['push', '--status'],
  ['config', 'check'],
  ['prices', 'status'],
  ['install', '--all', '--dry-run'],
];

function run(args: string[], env: Record<string, string>, input?: string) {
  const started = Date.now();
  const r = spawnSync(process.execPath, args, {
    input,
    encoding: 'utf8',
    timeout: 8_000,
    env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_PRICE_REFRESH: 'off', ...env },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

describe('an unusable data dir', () => {
  for (const [what, env, data] of UNUSABLE)
    it(`${what}: every command ends at once, one line naming ${data}, exit 1`, () => {
      for (const argv of COMMANDS) {
        const r = run([join(root, 'dist/cli.js'), ...argv], env);
        expect({ argv, status: r.status, signal: r.signal }).toEqual({ argv, status: 1, signal: null });
        // Node's own start is most of it; 2.5 s leaves room for a loaded machine, a loop would hit the 8 s kill.
        expect(r.ms).toBeLessThan(2500);
        expect(r.stderr.split('\n').filter(Boolean)).toEqual([
          expect.stringContaining(`tiergate ${argv[0]}: the data directory ${data} cannot be created or written`),
        ]);
        expect(r.stdout).toBe('');
      }
    });

  it('`demo` records into a temporary data dir of its own: it still runs', () => {
    const r = run([join(root, 'dist/cli.js'), 'demo'], { TIERGATE_HOME: '/proc/nope' });
    expect({ status: r.status, signal: r.signal }).toEqual({ status: 0, signal: null });
  });

  it('the hooks still decide and exit 0 at once, the failed writes on stderr', () => {
    const input = JSON.stringify({ ...fixturePayload('codex/PreToolUse.basic.json'), cwd: dir, model: 'gpt-6-luna' });
    const hook = [join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'];
    const ok = run(hook, { TIERGATE_HOME: join(dir, 'ok') }, input);
    expect(JSON.parse(ok.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    for (const [what, env] of UNUSABLE) {
      const r = run(hook, env, input);
      expect({ what, status: r.status, signal: r.signal, stdout: r.stdout }).toEqual({
        what,
        status: 0,
        signal: null,
        stdout: ok.stdout,
      });
      expect(r.ms).toBeLessThan(2500);
      expect(r.stderr).toMatch(/^tiergate: \{.*"where":"spool"/m);
    }
  });
});
