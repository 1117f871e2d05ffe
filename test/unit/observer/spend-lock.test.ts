/**
 * The spend lock (observer/spend-lock.ts) as a second name of its base file (io/files.ts createExclusiveLink): taken
 * and dropped without making or freeing an inode, exclusive while held, its age read from the right timestamp.
 */
import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lockAgeOf, tryWithSpendLock } from '../../../src/observer/spend-lock.js';
import { spendPath } from '../../../src/observer/spend-summary.js';
import { tempHome } from './helpers.js';

const stat = (file: boolean, nlink: number, ctimeMs: number, mtimeMs: number) => ({
  isFile: () => file,
  nlink,
  ctimeMs,
  mtimeMs,
});

describe('lockAgeOf', () => {
  const now = 1_800_000_000_000;
  it('a second name of the base: as old as its inode last changed (the link that took it)', () => {
    expect(lockAgeOf(stat(true, 2, now - 120, now - 86_400_000), now)).toBe(120);
  });
  it("a lock of one name (an O_EXCL create, or an older tiergate's): as old as its mtime", () => {
    expect(lockAgeOf(stat(true, 1, now, now - 9_000), now)).toBe(9_000);
  });
  it('anything but a regular file: no lock of ours, stale at once', () => {
    expect(lockAgeOf(stat(false, 2, now, now), now)).toBe(Infinity);
  });
});

describe('the spend lock', () => {
  it('is a second name of one base inode, the same every time; held, nobody else gets it', () => {
    const { env } = tempHome();
    const lock = `${spendPath(env)}.lock`;
    let inside: { held: boolean } | null = null;
    const first = tryWithSpendLock(env, 0, () => {
      const st = lstatSync(lock);
      expect(st.nlink).toBe(2);
      expect(st.ino).toBe(lstatSync(`${lock}.base`).ino);
      inside = tryWithSpendLock(env, 0, () => 'never');
      return st.ino;
    });
    expect(first).toEqual({ held: true, value: expect.any(Number) });
    expect(inside).toEqual({ held: false });
    expect(existsSync(lock)).toBe(false);
    expect(lstatSync(`${lock}.base`).mode & 0o777).toBe(0o600);
    const again = tryWithSpendLock(env, 0, () => lstatSync(lock).ino);
    expect(again).toEqual({ held: true, value: (first as { value: number }).value });
  });

  it('a link put where the base goes: the first contender takes the lock over and a regular base is made', () => {
    const { dir, env } = tempHome();
    const lock = `${spendPath(env)}.lock`;
    mkdirSync(`${dir}/tg/data`, { recursive: true });
    writeFileSync(`${dir}/elsewhere`, 'not ours\n');
    symlinkSync(`${dir}/elsewhere`, `${lock}.base`);
    const got = tryWithSpendLock(env, 0, () => {
      // This lock is a link (linked, never followed): a contender takes it over, and the base goes with it.
      const taken = tryWithSpendLock(env, 0, () => {
        expect(lstatSync(`${lock}.base`).isFile()).toBe(true);
        return tryWithSpendLock(env, 0, () => 'never'); // a regular lock again: exclusive
      });
      return taken;
    });
    expect(got).toEqual({ held: true, value: { held: true, value: { held: false } } });
    expect(existsSync(`${dir}/elsewhere`)).toBe(true);
  });
});
