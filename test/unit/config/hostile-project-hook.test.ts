/**
 * A cloned repository's .tiergate.json against the built Claude command hook (dist/hook.cjs, a process per event as
 * Claude Code runs it): it cannot switch the guard off or reprice its way to a pricier child. The same file in a
 * project root the user trusts does what it says. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const HOOK = join(root, 'dist/hook.cjs');
const FIXTURES = join(root, 'test/fixtures/claude');

function payload(name: string): Record<string, unknown> {
  return fixturePayload(`claude/${name}`);
}

/** One hook run in a fresh sandbox: the opus-or-no-model dispatch of a sonnet parent (its transcript says so). */
function dispatch(
  fixtureName: string,
  project: Record<string, unknown>,
  user?: (projectRoot: string) => Record<string, unknown>,
) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-hostile-hook-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    TIERGATE_HOME: join(dir, 'tg'),
    TIERGATE_PRICE_REFRESH: 'off',
  };
  const repo = join(dir, 'cloned-repo');
  mkdirSync(repo);
  writeFileSync(join(repo, '.tiergate.json'), JSON.stringify(project));
  if (user) {
    mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(join(env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify(user(repo)));
  }
  const transcript = join(dir, 'parent.jsonl');
  copyFileSync(join(FIXTURES, 'transcripts', 'parent-sonnet.parent.at-PreToolUse.jsonl'), transcript);
  const input = JSON.stringify({ ...payload(fixtureName), cwd: repo, transcript_path: transcript });
  const r = spawnSync(process.execPath, [HOOK, 'claude', 'PreToolUse'], {
    input,
    env,
    cwd: repo,
    encoding: 'utf8',
    timeout: 15_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const out =
    r.stdout === ''
      ? null
      : (
          JSON.parse(r.stdout) as {
            hookSpecificOutput: { updatedInput?: { model?: string }; permissionDecision?: string };
          }
        ).hookSpecificOutput;
  let log: string[] = [];
  try {
    log = readFileSync(join(env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { message: string }).message);
  } catch {
    // no log: nothing diagnosed
  }
  return { out, log };
}

const OPUS_FREE = { 'claude-opus-5-5': { input: '0', output: '0' } };

describe('a hostile .tiergate.json through the built Claude hook', () => {
  it('mode off does not stop an opus child of a sonnet parent from being corrected, and the log says why', () => {
    const { out, log } = dispatch('PreToolUse.parent-sonnet.json', { mode: 'off' });
    expect(out?.updatedInput?.model).toBe('sonnet');
    expect(
      log.some((m) =>
        m.includes(
          'ignored \'mode\' ("off" is looser than the user\'s "on"): a project file may only tighten; add this project to trustedProjects in ',
        ),
      ),
    ).toBe(true);
  });

  it('opus priced 0 does not let the opus child through', () => {
    expect(dispatch('PreToolUse.parent-sonnet.json', { priceOverrides: OPUS_FREE }).out?.updatedInput?.model).toBe(
      'sonnet',
    );
  });

  it('defaultTier premium with opus priced 0 does not move a no-model dispatch up to opus', () => {
    expect(
      dispatch('PreToolUse.nomodel.json', { defaultTier: 'premium', priceOverrides: OPUS_FREE }).out?.updatedInput
        ?.model,
    ).toBe('sonnet');
  });

  it('trustedProjects in the project file itself trusts nothing', () => {
    const dir = { mode: 'off', trustedProjects: ['/'] };
    expect(dispatch('PreToolUse.parent-sonnet.json', dir).out?.updatedInput?.model).toBe('sonnet');
  });

  it('the same files in a root the user trusts do apply (the opt-in works through the hook too)', () => {
    const trust = (repo: string) => ({ trustedProjects: [repo] });
    expect(dispatch('PreToolUse.parent-sonnet.json', { mode: 'off' }, trust).out).toBeNull();
    expect(
      dispatch('PreToolUse.nomodel.json', { defaultTier: 'premium', priceOverrides: OPUS_FREE }, trust).out
        ?.updatedInput?.model,
    ).toBe('opus');
  });
});
