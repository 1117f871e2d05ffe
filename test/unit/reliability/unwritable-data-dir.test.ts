/**
 * A data dir that cannot be written still decides (docs/reliability.md): an over-ceiling dispatch through the built
 * `dist/hook.cjs` gets the same answer as with a writable one, for Cursor (whose memory write once threw inside its
 * error wrapper and turned the deny into the wrapper's allow), Claude Code and Codex; and the failed writes are
 * diagnosed on the hook's stderr, since the log that would take them is in the same unwritable dir.
 *
 * The data dir is a regular FILE (`<TIERGATE_HOME>/data`): every write under it fails with ENOTDIR, for root too
 * (chmod 0500 does not stop root, and the tests may run as root). The config dir next to it stays readable.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');

function fixture(p: string, over: Record<string, unknown>): string {
  return JSON.stringify({ ...fixturePayload(p), ...over });
}

/** A project, a HOME, and two TIERGATE_HOMEs: one writable, one whose `data` is a regular file. */
function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-unwritable-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  mkdirSync(join(dir, 'ro', 'config'), { recursive: true });
  writeFileSync(join(dir, 'ro', 'data'), 'a regular file where the data dir should be');
  const hook = (home: 'ok' | 'ro', harness: string, event: string, input: string) => {
    const r = spawnSync(process.execPath, ['--preserve-symlinks-main', join(root, 'dist/hook.cjs'), harness, event], {
      input,
      encoding: 'utf8',
      timeout: 20_000,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: join(dir, 'home'),
        TIERGATE_HOME: join(dir, home),
        TIERGATE_PRICE_REFRESH: 'off',
      },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return { dir, project, hook };
}

/** Each stderr line is `tiergate: <the diagnostic's JSON>`. */
const stderrDiagnostics = (stderr: string) =>
  stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      expect(l).toMatch(/^tiergate: \{/);
      return JSON.parse(l.slice('tiergate: '.length)) as { level: string; where: string; message: string };
    });

describe('an unwritable data dir still decides', () => {
  it('Cursor preToolUse and subagentStart: an over-ceiling dispatch is denied, the failed memory write on stderr', () => {
    const { project, hook } = sandbox();
    const task = fixture('cursor/preToolUse.task.json', {
      cwd: project,
      workspace_roots: [project],
      model: 'claude-haiku-4-5',
      tool_input: { subagent_type: 'explore', model: 'claude-opus-5' },
    });
    const start = fixture('cursor/subagentStart.basic.json', {
      cwd: project,
      model_id: 'claude-haiku-4-5',
      subagent_model: 'claude-opus-5',
      tool_call_id: 'toolu_ro_2',
      subagent_id: 'toolu_ro_2',
    });
    for (const [event, input] of [
      ['preToolUse', task],
      ['subagentStart', start],
    ] as const) {
      const ok = hook('ok', 'cursor', event, input);
      const ro = hook('ro', 'cursor', event, input);
      expect(JSON.parse(ok.stdout).permission).toBe('deny');
      expect({ event, status: ro.status, stdout: ro.stdout }).toEqual({ event, status: 0, stdout: ok.stdout });
      expect(ok.stderr).toBe('');
      const diags = stderrDiagnostics(ro.stderr);
      expect(diags).toContainEqual(
        expect.objectContaining({
          where: `cursor:${event}`,
          message: expect.stringMatching(/memory not saved: Error: E[A-Z]+/),
        }),
      );
      expect(diags).toContainEqual(
        expect.objectContaining({ where: 'spool', message: expect.stringMatching(/ENOTDIR/) }),
      );
    }
  });

  it('Claude Code PreToolUse: the over-ceiling dispatch gets the same correction, the failed spool write on stderr', () => {
    const { dir, project, hook } = sandbox();
    const parent = join(dir, 'parent.jsonl');
    writeFileSync(
      parent,
      readFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl')),
    );
    const input = fixture('claude/PreToolUse.parent-sonnet.json', { cwd: project, transcript_path: parent });
    const ok = hook('ok', 'claude', 'PreToolUse', input);
    const ro = hook('ro', 'claude', 'PreToolUse', input);
    expect(JSON.parse(ok.stdout).hookSpecificOutput.updatedInput.model).not.toBe('opus');
    expect({ status: ro.status, stdout: ro.stdout }).toEqual({ status: 0, stdout: ok.stdout });
    expect(stderrDiagnostics(ro.stderr)).toContainEqual(
      expect.objectContaining({ where: 'spool', message: expect.stringMatching(/ENOTDIR/) }),
    );
  });

  it('Codex PreToolUse: the over-ceiling spawn is denied, the failed spool write on stderr', () => {
    const { project, hook } = sandbox();
    const input = fixture('codex/PreToolUse.basic.json', { cwd: project, model: 'gpt-6-luna' });
    const ok = hook('ok', 'codex', 'PreToolUse', input);
    const ro = hook('ro', 'codex', 'PreToolUse', input);
    expect(JSON.parse(ok.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect({ status: ro.status, stdout: ro.stdout }).toEqual({ status: 0, stdout: ok.stdout });
    expect(stderrDiagnostics(ro.stderr)).toContainEqual(
      expect.objectContaining({ where: 'spool', message: expect.stringMatching(/ENOTDIR/) }),
    );
  });
});
