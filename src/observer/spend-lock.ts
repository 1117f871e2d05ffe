/**
 * The spend summary's lock file (O_EXCL beside spend.json): whoever reads the summary to change it (a completion's
 * merge, the ledger rebuild, a dispatch reserving its expected cost) holds it for the read-modify-write. A holder dead
 * for LOCK_STALE_MS is taken over. On the dispatch path: file calls only, no SQLite, no pricing.
 */
import { lstatSync } from 'node:fs';
import { createExclusive, moveFile, removeFile } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { spendPath } from './spend-summary.js';

/** A holder older than this died (an update takes milliseconds): its lock is taken over. */
export const LOCK_STALE_MS = 5_000;

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * How old the lock is, by its mtime: the lock is an empty file, its O_EXCL create alone (writing the holder's pid and
 * time in it cost every dispatch under a budget a write, ~20 µs on ext4 with the block it allocated; nothing read them:
 * bench/README.md, "Session 17: the budget path"). null: gone meanwhile. A link or anything but a regular file there is
 * no lock of ours: stale (moved aside, never followed).
 */
function lockAge(lock: string, now: number): number | null {
  const st = lstatSync(lock, { throwIfNoEntry: false });
  if (!st) return null;
  return st.isFile() ? now - st.mtimeMs : Infinity;
}

/** `fn` under the lock, or `{ held: false }` when the lock could not be had within `waitMs`. */
export function tryWithSpendLock<T>(env: Env, waitMs: number, fn: () => T): { held: true; value: T } | { held: false } {
  const lock = `${spendPath(env)}.lock`;
  const until = Date.now() + waitMs;
  for (let n = 0; ; n++) {
    const now = Date.now();
    if (createExclusive(lock, '')) break;
    const age = lockAge(lock, now);
    if (age !== null && !(age < LOCK_STALE_MS && age > -LOCK_STALE_MS)) {
      // Taken over by a rename, so of two takers only one removes it (the other's rename finds nothing).
      const aside = `${lock}.stale-${process.pid}-${n}`;
      try {
        moveFile(lock, aside);
        removeFile(aside);
      } catch {
        /* another writer took it over first */
      }
      continue;
    }
    if (now >= until) return { held: false };
    // Short and jittered: a dispatch holds the lock for about a millisecond, and contenders in step would collide again.
    sleep(1 + Math.floor(Math.random() * 4));
  }
  try {
    return { held: true, value: fn() };
  } finally {
    removeFile(lock);
  }
}

/** `fn` under the lock; throws when it cannot be had within `waitMs`. */
export function withSpendLock<T>(env: Env, waitMs: number, fn: () => T): T {
  const r = tryWithSpendLock(env, waitMs, fn);
  if (!r.held) throw new Error(`spend summary lock held for more than ${waitMs} ms`);
  return r.value;
}
