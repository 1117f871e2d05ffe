import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  DEAD_PID_GRACE_MS,
  STALE_MS,
  acquireLock,
  adoptLock,
  lockHeld,
  readLock,
  releaseLock,
} from '../../../src/refresh/lock.js';

let dir: string;
let lock: string;
const DEAD_PID = 2 ** 22 + 12345; // above the default pid_max: never a live process

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tg-lock-'));
  lock = join(dir, 'refresh.lock');
});

const plant = (pid: number, startedAt: number, nonce = 'planted') =>
  writeFileSync(lock, JSON.stringify({ pid, nonce, startedAt }));

describe('refresh lock', () => {
  it('is exclusive: the second taker gets null until the first releases', () => {
    const a = acquireLock(lock);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(acquireLock(lock)).toBeNull();
    expect(lockHeld(lock)).toBe(true);
    releaseLock(lock, a!);
    expect(existsSync(lock)).toBe(false);
    expect(acquireLock(lock)).not.toBeNull();
  });

  it('release with a foreign nonce leaves the lock alone', () => {
    const a = acquireLock(lock)!;
    releaseLock(lock, 'not-mine');
    expect(readLock(lock)?.nonce).toBe(a);
  });

  it('a live holder is never stolen, however old the pid check says it is within the stale age', () => {
    const now = Date.now();
    plant(process.pid, now - (STALE_MS - 1000));
    expect(acquireLock(lock, process.pid, now)).toBeNull();
    expect(readLock(lock)?.nonce).toBe('planted');
  });

  it('a dead pid holds the lock only for the hand-off grace', () => {
    const now = Date.now();
    plant(DEAD_PID, now - (DEAD_PID_GRACE_MS - 1000));
    expect(acquireLock(lock, process.pid, now)).toBeNull();
    plant(DEAD_PID, now - (DEAD_PID_GRACE_MS + 1000));
    const taken = acquireLock(lock, process.pid, now);
    expect(taken).not.toBeNull();
    expect(readLock(lock)).toMatchObject({ pid: process.pid, nonce: taken });
    expect(readdirSync(dir)).toEqual(['refresh.lock']); // the stale one renamed aside was removed
  });

  it('any lock older than the stale age is taken over, even with a live pid', () => {
    const now = Date.now();
    plant(process.pid, now - STALE_MS - 1);
    expect(acquireLock(lock, process.pid, now)).not.toBeNull();
  });

  it('garbage in the lock file counts as stale', () => {
    writeFileSync(lock, 'not json');
    expect(lockHeld(lock)).toBe(false);
    expect(acquireLock(lock)).not.toBeNull();
  });

  it('the launched process adopts the lock by nonce and puts its own pid in', () => {
    const n = acquireLock(lock, DEAD_PID)!;
    expect(adoptLock(lock, 'wrong', process.pid)).toBe(false);
    expect(adoptLock(lock, n, process.pid)).toBe(true);
    expect(readLock(lock)).toMatchObject({ pid: process.pid, nonce: n });
  });
});
