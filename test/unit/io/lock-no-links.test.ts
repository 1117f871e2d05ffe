/**
 * createExclusiveLink where the file system has no hard links (vfat, some network and FUSE mounts: link(2) says EPERM
 * or ENOTSUP): the lock is an O_EXCL create of its own, exclusive all the same.
 */
import { existsSync, lstatSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const refused = vi.hoisted(() => ({ code: 'EPERM', calls: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const linkSync = (() => {
    refused.calls += 1;
    throw Object.assign(new Error(`${refused.code}: operation not permitted, link`), { code: refused.code });
  }) as typeof fs.linkSync;
  return { ...fs, linkSync, default: { ...fs, linkSync } };
});

const { createExclusiveLink } = await import('../../../src/io/files.js');

describe('createExclusiveLink without hard links', () => {
  for (const code of ['EPERM', 'ENOTSUP']) {
    it(`link(2) says ${code}: the lock is a file of its own, created once (false while it is there)`, () => {
      refused.code = code;
      refused.calls = 0;
      const dir = mkdtempSync(join(tmpdir(), 'tg-nolink-'));
      const lock = join(dir, 'data', 'x.lock');
      expect(createExclusiveLink(lock, `${lock}.base`)).toBe(true);
      expect(refused.calls).toBe(1);
      expect(lstatSync(lock).nlink).toBe(1);
      expect(lstatSync(lock).mode & 0o777).toBe(0o600);
      expect(existsSync(`${lock}.base`)).toBe(false);
      expect(createExclusiveLink(lock, `${lock}.base`)).toBe(false);
    });
  }
});
