/**
 * The refresh lock: a file created with O_EXCL, so concurrent session starts launch one refresh and the rest return
 * at once. It holds {pid, nonce, startedAt}. A lock is stale when it is older than STALE_MS, or when its pid is gone
 * and it is older than DEAD_PID_GRACE_MS (the grace covers the hand-off from the hook that took it to the detached
 * process that adopts it).
 */
import { randomBytes } from 'node:crypto';
import { createExclusive, moveFile, removeFile, writeFileAtomic } from '../io/files.js';
import { readTextCapped } from '../io/read-capped.js';

export const STALE_MS = 10 * 60_000;
export const DEAD_PID_GRACE_MS = 30_000;

export type LockInfo = { pid: number; nonce: string; startedAt: number };

export function readLock(path: string): LockInfo | null {
  try {
    // Inside the data dir: a link or FIFO is refused (and so read as an ancient lock, moved aside and replaced).
    const v = JSON.parse(readTextCapped(path, 64 * 1024, { follow: false })) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && typeof v.nonce === 'string' && typeof v.startedAt === 'number') {
      return { pid: v.pid, nonce: v.nonce, startedAt: v.startedAt };
    }
    return { pid: 0, nonce: '', startedAt: 0 }; // unreadable content: treat as ancient
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { pid: 0, nonce: '', startedAt: 0 };
  }
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function isStale(lock: LockInfo, nowMs: number): boolean {
  const age = nowMs - lock.startedAt;
  if (age > STALE_MS || age < -STALE_MS) return true;
  return age > DEAD_PID_GRACE_MS && !pidAlive(lock.pid);
}

/** True when a live refresh holds the lock. */
export function lockHeld(path: string, nowMs = Date.now()): boolean {
  const lock = readLock(path);
  return lock !== null && !isStale(lock, nowMs);
}

function content(pid: number, nonce: string, nowMs: number): string {
  return `${JSON.stringify({ pid, nonce, startedAt: nowMs })}\n`;
}

/** Take the lock without waiting. Returns its nonce, or null when a live refresh holds it. */
export function acquireLock(path: string, pid = process.pid, nowMs = Date.now()): string | null {
  const nonce = randomBytes(8).toString('hex');
  if (createExclusive(path, content(pid, nonce, nowMs))) return nonce;
  const seen = readLock(path);
  if (seen === null) return createExclusive(path, content(pid, nonce, nowMs)) ? nonce : null;
  if (!isStale(seen, nowMs)) return null;
  // Take a stale lock over by renaming it aside: of several contenders only one rename finds the file.
  const aside = `${path}.stale-${process.pid}-${nonce}`;
  try {
    moveFile(path, aside);
  } catch {
    return null;
  }
  const moved = readLock(aside);
  if (moved && moved.nonce !== seen.nonce) {
    // Between our read and our rename another process replaced the stale lock with a live one: put it back.
    try {
      moveFile(aside, path);
    } catch {
      removeFile(aside);
    }
    return null;
  }
  removeFile(aside);
  return createExclusive(path, content(pid, nonce, nowMs)) ? nonce : null;
}

/** The detached refresh takes over the lock its launcher took, by nonce, and puts its own pid in it. */
export function adoptLock(path: string, nonce: string, pid = process.pid, nowMs = Date.now()): boolean {
  const seen = readLock(path);
  if (!seen || seen.nonce !== nonce) return false;
  writeFileAtomic(path, content(pid, nonce, nowMs));
  return true;
}

/** Release only our own lock: a lock taken over as stale belongs to someone else now. */
export function releaseLock(path: string, nonce: string): void {
  const seen = readLock(path);
  if (seen && seen.nonce === nonce) removeFile(path);
}
