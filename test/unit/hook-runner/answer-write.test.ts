/**
 * The hook writes its answer with fs.writeSync on fd 1 (no process.stdout stream: core.ts). A correction carries the
 * whole tool input back, so an answer can be far larger than a pipe's buffer: all of it must arrive, intact.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');

describe('hook answer on stdout', () => {
  it('a correction of a 700 KB prompt arrives whole (more than ten pipe buffers)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-answer-'));
    const parent = join(dir, 'parent.jsonl');
    copyFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl'), parent);
    const payload = fixturePayload('claude/PreToolUse.parent-sonnet.json') as { tool_input: Record<string, unknown> };
    const prompt = `${'ünïcode and ascii '.repeat(38_000)}END`;
    const input = { ...payload, cwd: dir, transcript_path: parent, tool_input: { ...payload.tool_input, prompt } };
    const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'claude', 'PreToolUse'], {
      input: JSON.stringify(input),
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') },
    });
    expect(r.status).toBe(0);
    expect(Buffer.byteLength(r.stdout)).toBeGreaterThan(700_000);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { updatedInput: Record<string, unknown> } };
    expect(out.hookSpecificOutput.updatedInput.prompt).toBe(prompt);
    expect(out.hookSpecificOutput.updatedInput.model).not.toBe(payload.tool_input.model);
  });
});
