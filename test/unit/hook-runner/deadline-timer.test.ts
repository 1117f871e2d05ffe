/**
 * The runner's deadline timer starts with the hook (src/hook-runner/core.ts): whatever a handler waits on, a stalled
 * wait ends at tiergate's deadline, not the harness's. In-process: a handler stalled on a timer is ended at the
 * deadline; one that answers leaves no timer behind. Through dist/hook.cjs: Claude's parent-transcript poll (the stdin
 * waits are in stdin-pipe.test.ts) ends at the deadline, measured by the hook's own clock in the diagnostic line.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runHookWith } from '../../../src/hook-runner/core.js';
import type { AdapterTable } from '../../../src/contracts/hook.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const env = () => ({ TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-deadline-')), TIERGATE_HOOK_DEADLINE_MS: '200' });
const input = () => Readable.from([Buffer.from('{}')]);
const activeTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'Immediate').length;

describe('the deadline timer', () => {
  it('a handler that stalls on a timer is ended at the deadline', async () => {
    let stall: NodeJS.Timeout | undefined;
    const adapters: AdapterTable = {
      fake: async () => ({
        handlers: {
          Wait: async () => {
            await new Promise((r) => {
              stall = setTimeout(r, 10_000);
            });
            return { stdout: 'late' };
          },
        },
      }),
    };
    const started = Date.now();
    const r = await runHookWith(adapters, 'fake', 'Wait', input(), env());
    clearTimeout(stall);
    expect(r.answer).toBeNull();
    expect(r.failed).toContain('deadline of 200 ms passed');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a handler that answers leaves no timer behind', async () => {
    const adapters: AdapterTable = { fake: async () => ({ handlers: { Now: () => ({ stdout: 'now' }) } }) };
    const before = activeTimers();
    const s = await runHookWith(adapters, 'fake', 'Now', Readable.from([Buffer.from('{}')]), env());
    expect(s.answer).toEqual({ stdout: 'now' });
    expect(activeTimers()).toBe(before);
  });
});

describe("Claude's parent-transcript poll in the real hook", () => {
  it('ends at the deadline, not when the poll gives up (400 ms)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-deadline-claude-'));
    mkdirSync(join(dir, 'home'));
    const parent = join(dir, 'parent.jsonl');
    copyFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl'), parent);
    const payload = fixturePayload('claude/PreToolUse.parent-sonnet.json');
    // A tool_use id the transcript never gets: the hook polls for it (PARENT_WAIT_MS) as it would for a late write.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: join(dir, 'home'),
      TIERGATE_HOME: join(dir, 'tg'),
      TIERGATE_HOOK_DEADLINE_MS: '60',
    };
    const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'claude', 'PreToolUse'], {
      input: JSON.stringify({ ...payload, cwd: dir, transcript_path: parent, tool_use_id: 'toolu_never_written' }),
      env,
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const line = readFileSync(join(dir, 'tg', 'data', 'diagnostics.log'), 'utf8')
      .split('\n')
      .map((l) => (l ? JSON.parse(l) : null))
      .find((l) => l?.message?.includes('deadline of 60 ms passed'));
    expect(line).toBeTruthy();
    // The timer's own measure: the poll alone would have run to 400 ms before the answer-time check caught it.
    expect(line.ms).toBeLessThan(300);
  });
});
