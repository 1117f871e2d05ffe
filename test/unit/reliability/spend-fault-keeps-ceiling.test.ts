/**
 * A budget is set and the spend read or reservation throws (a fault inside observer/spend-reserve.ts): the budgets
 * fail open for that dispatch only, and the price ceiling still denies an over-ceiling Cursor dispatch (issue 28 item 1:
 * a fault in one part of a decision never turns it into an allow). vi.mock makes the real module throw on demand.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const broken = vi.hoisted(() => ({ spend: false, lock: false }));

// The spend lock's link(2) fails with what a read-only or foreign data dir says: a fault inside the reservation's lock
// (observer/spend-lock.ts), which spend-reserve.ts catches itself, unlike a throw of decideReserving as a whole.
vi.mock('../../../src/io/files.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/io/files.js')>();
  return {
    ...real,
    createExclusiveLink: (...a: Parameters<typeof real.createExclusiveLink>) => {
      if (broken.lock) throw Object.assign(new Error('EACCES: permission denied, link'), { code: 'EACCES' });
      return real.createExclusiveLink(...a);
    },
  };
});

vi.mock('../../../src/observer/spend-reserve.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/observer/spend-reserve.js')>();
  return {
    ...real,
    decideReserving: (...a: Parameters<typeof real.decideReserving>) => {
      if (broken.spend) throw new Error('EIO: spend.json');
      return real.decideReserving(...a);
    },
  };
});

const { routeDispatch } = await import('../../../src/runtime/dispatch.js');
const { clearRuntimeCache } = await import('../../../src/config/runtime.js');
const { makeCursorAdapter } = await import('../../../src/adapters/cursor/handlers.js');
const { appendSpool } = await import('../../../src/observer/spool.js');

let env: Record<string, string>;
beforeEach(() => {
  const home = mkdtempSync(join(tmpdir(), 'tg-spendfault-'));
  env = { TIERGATE_HOME: home, TIERGATE_PRICE_REFRESH: 'off' };
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ budgets: { day: '5', action: 'deny' } }));
  clearRuntimeCache();
  broken.spend = false;
  broken.lock = false;
});

const adapter = () => makeCursorAdapter({ route: routeDispatch, spool: appendSpool, now: Date.now });
const task = (model: string) => ({
  conversation_id: 'c1',
  model: 'claude-haiku-4-5',
  tool_name: 'Task',
  tool_use_id: `toolu_${model}`,
  tool_input: { subagent_type: 'explore', model },
});
const ctx = () => ({ env, harness: 'cursor', event: 'preToolUse', startedAt: Date.now(), deadlineMs: 5000 });
const answer = async (model: string) => {
  const out = await adapter().handlers.preToolUse!(task(model), ctx());
  return out?.stdout ? JSON.parse(out.stdout) : null;
};

describe('a spend fault costs the budgets, never the ceiling', () => {
  it('control: with the budget readable, the over-ceiling dispatch is denied', async () => {
    expect((await answer('claude-opus-5')).permission).toBe('deny');
  });

  it('the spend read throws: the over-ceiling dispatch is still denied, and the log says the budgets were not checked', async () => {
    broken.spend = true;
    expect((await answer('claude-opus-5')).permission).toBe('deny');
    expect(readFileSync(join(env.TIERGATE_HOME!, 'data', 'diagnostics.log'), 'utf8')).toMatch(
      /budgets not checked: the spend could not be read: (Error: )?EIO: spend\.json/,
    );
  });

  it('the spend read throws: a within-ceiling dispatch is allowed, not refused', async () => {
    broken.spend = true;
    const out = await answer('claude-haiku-4-5');
    expect(out?.permission ?? 'allow').toBe('allow');
  });

  it('the spend lock cannot be taken: the over-ceiling dispatch is still denied, and the log says nothing was reserved', async () => {
    broken.lock = true;
    expect((await answer('claude-opus-5')).permission).toBe('deny');
    expect((await answer('claude-haiku-4-5'))?.permission ?? 'allow').toBe('allow');
    expect(readFileSync(join(env.TIERGATE_HOME!, 'data', 'diagnostics.log'), 'utf8')).toMatch(
      /this child's cost not reserved: EACCES: permission denied, link/,
    );
  });
});
