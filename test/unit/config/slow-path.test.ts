/**
 * config/runtime.ts reaches the policy's slow path only through what the process's entry named (usePolicySlowPath).
 * A process whose entry named none (a new entry that forgot to) decides nothing from the policy files: its dispatch
 * fails open, diagnosed, and never blocks. In a child: the vitest setup names the slow path for every test file.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';
import { inChild } from '../io/in-child.js';

describe('a process whose entry named no policy slow path', () => {
  it('allows an over-ceiling dispatch with one error diagnostic; once named, the same dispatch is denied', () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-slow-path-'));
    // A cheap parent (haiku) asks for a dearer child (opus): over the ceiling, denied when the policy is read.
    const base = fixturePayload('cursor/preToolUse.task.json') as { tool_input: Record<string, unknown> };
    const task = {
      ...base,
      cwd: home,
      model: 'claude-haiku-4-5',
      tool_input: { ...base.tool_input, model: 'claude-opus-5' },
    };
    const got = inChild<string[]>(`
      const { routeDispatch } = await import(src + '/runtime/dispatch.ts');
      const { appendSpool } = await import(src + '/observer/spool.ts');
      const { makeCursorAdapter } = await import(src + '/adapters/cursor/handlers.ts');
      const { clearRuntimeCache, usePolicySlowPath } = await import(src + '/config/runtime.ts');
      const env = { TIERGATE_HOME: ${JSON.stringify(home)}, TIERGATE_PRICE_REFRESH: 'off' };
      const task = ${JSON.stringify(task)};
      const decide = async () => {
        const adapter = makeCursorAdapter({ route: routeDispatch, spool: appendSpool, now: Date.now });
        const ctx = { env, harness: 'cursor', event: 'preToolUse', startedAt: Date.now(), deadlineMs: 5000 };
        return JSON.parse((await adapter.handlers.preToolUse(task, ctx)).stdout).permission;
      };
      const unnamed = await decide();
      const { policySlowPath } = await import(src + '/config/policy-load.ts');
      usePolicySlowPath(() => policySlowPath);
      clearRuntimeCache();
      return [unnamed, await decide()];`);
    expect(got).toEqual(['allow', 'deny']);
    const log = readFileSync(join(home, 'data', 'diagnostics.log'), 'utf8');
    // One error (runtime/dispatch.ts also repeats an internal error as the decision's diagnostic, at warn).
    const errors = log.split('\n').filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('PolicySlowPathMissing: no policy slow path');
  });
});
