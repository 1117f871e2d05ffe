/**
 * routeDispatch decides; its persistence (the effective file's rewrite, the record, the spool line) may throw, and a
 * throw there must never change the decision: an over-ceiling Cursor dispatch stays denied, and the throw is diagnosed.
 * Each persistence step is made to throw in turn (vi.mock wraps the real modules).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const broken = vi.hoisted(() => ({ part: null as null | 'effective' | 'record' | 'spool' }));

vi.mock('../../../src/io/files.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/io/files.js')>();
  return {
    ...real,
    writeFileAtomic: (...a: Parameters<typeof real.writeFileAtomic>) =>
      broken.part === 'effective' && a[0].endsWith('effective.json')
        ? (() => {
            throw new Error('EROFS: effective');
          })()
        : real.writeFileAtomic(...a),
  };
});
vi.mock('../../../src/observer/redact.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/observer/redact.js')>();
  return {
    redactToolInput: (i: Record<string, unknown>) =>
      broken.part === 'record'
        ? (() => {
            throw new Error('record: cannot build');
          })()
        : real.redactToolInput(i),
  };
});
vi.mock('../../../src/observer/spool.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/observer/spool.js')>();
  return {
    ...real,
    appendSpool: (...a: Parameters<typeof real.appendSpool>) =>
      broken.part === 'spool'
        ? (() => {
            throw new Error('ENOSPC: spool');
          })()
        : real.appendSpool(...a),
  };
});

const { routeDispatch } = await import('../../../src/runtime/dispatch.js');
const { clearRuntimeCache } = await import('../../../src/config/runtime.js');
const { makeCursorAdapter } = await import('../../../src/adapters/cursor/handlers.js');
const { appendSpool } = await import('../../../src/observer/spool.js');

let env: Record<string, string>;
beforeEach(() => {
  env = { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-persist-')), TIERGATE_PRICE_REFRESH: 'off' };
  clearRuntimeCache();
  broken.part = null;
});

const adapter = () => makeCursorAdapter({ route: routeDispatch, spool: appendSpool, now: Date.now });
const task = {
  conversation_id: 'c1',
  model: 'claude-haiku-4-5',
  tool_name: 'Task',
  tool_use_id: 'toolu_p1',
  tool_input: { subagent_type: 'explore', model: 'claude-opus-5' },
};
const ctx = () => ({ env, harness: 'cursor', event: 'preToolUse', startedAt: Date.now(), deadlineMs: 5000 });
const log = () => readFileSync(join(env.TIERGATE_HOME!, 'data', 'diagnostics.log'), 'utf8');

describe('a persistence throw never changes the decision', () => {
  it('control: nothing broken, the over-ceiling Cursor dispatch is denied', async () => {
    const out = JSON.parse((await adapter().handlers.preToolUse!(task, ctx()))!.stdout!);
    expect(out.permission).toBe('deny');
  });

  for (const part of ['effective', 'record', 'spool'] as const) {
    it(`${part} throws: still denied, and the throw is in the log`, async () => {
      broken.part = part;
      const out = JSON.parse((await adapter().handlers.preToolUse!(task, ctx()))!.stdout!);
      expect(out.permission).toBe('deny');
      expect(log()).toMatch(
        part === 'effective' ? /EROFS: effective/ : part === 'record' ? /record: cannot build/ : /ENOSPC: spool/,
      );
    });
  }
});
