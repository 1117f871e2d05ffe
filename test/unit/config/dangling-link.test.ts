/**
 * A user config that is a symlink to nothing (issue 28 item 10): before, it read as "no file", so the defaults applied
 * in silence and `config check` said ok. Now it is a layer that could not be read: `config check` names it and exits
 * 1, and the dispatch hook's diagnostic says it (the built-in defaults still apply: fail open, never silent).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { DEFAULT_POLICY, loadPolicy } from '../../../src/config/load.js';
import { runCaptured } from '../../support/cli.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const DANGLING = 'a dangling link: its target does not exist or cannot be reached; ignored';

function sandbox() {
  const home = mkdtempSync(join(tmpdir(), 'tg-dangling-'));
  mkdirSync(join(home, 'config'), { recursive: true });
  const config = join(home, 'config', 'config.json');
  symlinkSync(join(home, 'dotfiles', 'tiergate.json'), config);
  return { home, config, env: { TIERGATE_HOME: home, TIERGATE_PRICE_REFRESH: 'off' } };
}

describe('a dangling user-config link', () => {
  it('loads as the defaults with a diagnostic naming the file', () => {
    const sb = sandbox();
    const r = loadPolicy(sb.env, null);
    expect(r.policy).toEqual(DEFAULT_POLICY);
    expect(r.diagnostics).toEqual([`${sb.config}: ${DANGLING}`]);
    expect(r.files).toEqual([sb.config]);
  });

  it('config check says it and exits 1; once the target exists it is ok', async () => {
    const sb = sandbox();
    const r = await runCaptured(main, ['config', 'check'], sb.env, sb.home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`  - ${sb.config}: ${DANGLING}`);
    expect(r.out).not.toContain('ok: no problems found');
    mkdirSync(join(sb.home, 'dotfiles'));
    writeFileSync(join(sb.home, 'dotfiles', 'tiergate.json'), '{"mode":"warn"}');
    const ok = await runCaptured(main, ['config', 'check'], sb.env, sb.home);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('mode warn');
  });

  it('the built dispatch hook logs it (and still decides on the defaults)', () => {
    const sb = sandbox();
    const transcript = join(sb.home, 'parent.jsonl');
    copyFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl'), transcript);
    const input = {
      ...fixturePayload('claude/PreToolUse.parent-sonnet.json'),
      cwd: sb.home,
      transcript_path: transcript,
    };
    const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'claude', 'PreToolUse'], {
      input: JSON.stringify(input),
      env: { PATH: process.env.PATH ?? '', HOME: join(sb.home, 'home'), ...sb.env },
      cwd: sb.home,
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.updatedInput.model).toBe('sonnet');
    const log = readFileSync(join(sb.home, 'data', 'diagnostics.log'), 'utf8');
    expect(log).toContain(`${sb.config}: ${DANGLING}`);
  });
});
