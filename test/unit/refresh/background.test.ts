/**
 * The one background trigger (src/refresh/background.ts) the price refresh and the team push both start through: the
 * job's lock taken once and handed to the detached child by nonce, a second trigger while it is held starts nothing,
 * and a missing bundle or a failure is one diagnostic and a result, never a throw.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBackground } from '../../../src/refresh/background.js';
import { readLock, releaseLock } from '../../../src/refresh/lock.js';

const until = async (ok: () => boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
};

function job(dir: string, script: string) {
  return {
    where: 'test.trigger',
    what: 'test job',
    script: 'job.js',
    scriptPath: script,
    args: ['a', 'b'],
    lockPath: join(dir, 'job.lock'),
    lockEnv: 'TG_TEST_LOCK',
    childEnv: { TG_TEST_EXTRA: 'x' },
    now: Date.now(),
  };
}

describe('startBackground', () => {
  it('starts one detached child with the nonce, args and extra env; a second trigger finds the lock held', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-bg-'));
    const script = join(dir, 'job.js');
    const out = join(dir, 'out.json');
    writeFileSync(
      script,
      `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ args: process.argv.slice(2), lock: process.env.TG_TEST_LOCK, extra: process.env.TG_TEST_EXTRA }))`,
    );
    const env = { TIERGATE_HOME: dir, PATH: process.env.PATH ?? '' };
    const first = startBackground(env, job(dir, script));
    expect(first).toMatchObject({ started: true });
    const second = startBackground(env, job(dir, script));
    expect(second).toEqual({ started: false, reason: 'running', detail: 'another test job holds the lock' });
    await until(() => existsSync(out));
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    const lock = readLock(join(dir, 'job.lock'))!;
    expect(seen).toEqual({ args: ['a', 'b'], lock: lock.nonce, extra: 'x' });
    releaseLock(join(dir, 'job.lock'), lock.nonce);
  });

  it('a missing bundle: spawn-failed, one diagnostic, the lock left free', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-bg-'));
    const env = { TIERGATE_HOME: dir };
    expect(startBackground(env, job(dir, join(dir, 'absent.js')))).toEqual({
      started: false,
      reason: 'spawn-failed',
      detail: 'job.js not found',
    });
    expect(readLock(join(dir, 'job.lock'))).toBeNull();
    expect(readFileSync(join(dir, 'data', 'diagnostics.log'), 'utf8')).toMatch(/test\.trigger.*job\.js not found/);
  });
});
