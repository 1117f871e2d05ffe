/**
 * The spend summary's lock (`spend.json.lock`, a second name of `spend.json.lock.base`): whoever reads the summary to
 * change it (a completion's merge, the ledger rebuild, a dispatch reserving its expected cost) holds it for the
 * read-modify-write. A holder dead for LOCK_STALE_MS is taken over. On the dispatch path: file calls only, no SQLite,
 * no pricing.
 */
import { lstatSync, type Stats } from 'node:fs';
import { createExclusiveLink, moveFile, removeFile } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { spendPath } from './spend-summary.js';

/** A holder older than this died (an update takes milliseconds): its lock is taken over. */
export const LOCK_STALE_MS = 5_000;

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * How old the lock is. The lock is a second name of an empty base file (files.ts createExclusiveLink: no inode made or
 * freed a hook), so while held its inode has two names and its ctime is when it was taken: link(2) set it, and nothing
 * changes that inode again until the holder unlinks the name. A lock of one name (an O_EXCL create: where the file
 * system has no hard links, or one an older tiergate left) is as old as its mtime (bench/README.md, "Session 17: the
 * budget path"; nothing is written in it). A link or anything but a regular file there is no lock of ours: stale (moved
 * aside, never followed). Should someone delete the base while a lock is held, that lock reads as old as the base was
 * made: taken over, as a dead holder's would be.
 */
export const lockAgeOf = (st: Pick<Stats, 'isFile' | 'nlink' | 'ctimeMs' | 'mtimeMs'>, now: number): number =>
  !st.isFile() ? Infinity : now - (st.nlink > 1 ? st.ctimeMs : st.mtimeMs);

/** lockAgeOf the lock at `lock`; null: gone meanwhile. */
function lockAge(lock: string, now: number): number | null {
  const st = lstatSync(lock, { throwIfNoEntry: false });
  return st ? lockAgeOf(st, now) : null;
}

/** `fn` under the lock, or `{ held: false }` when the lock could not be had within `waitMs`. */
export function tryWithSpendLock<T>(env: Env, waitMs: number, fn: () => T): { held: true; value: T } | { held: false } {
  const lock = `${spendPath(env)}.lock`;
  const base = `${lock}.base`;
  const until = Date.now() + waitMs;
  for (let n = 0; ; n++) {
    const now = Date.now();
    if (createExclusiveLink(lock, base)) break;
    const age = lockAge(lock, now);
    if (age !== null && !(age < LOCK_STALE_MS && age > -LOCK_STALE_MS)) {
      // Taken over by a rename, so of two takers only one removes it (the other's rename finds nothing).
      const aside = `${lock}.stale-${process.pid}-${n}`;
      try {
        moveFile(lock, aside);
        removeFile(aside);
        // Not a regular file: a base that is none either (a link put in its place) gives every lock that shape, each
        // stale at once. Removed, so the next taker makes a regular one.
        if (age === Infinity) removeFile(base);
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
