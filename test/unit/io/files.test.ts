import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendBounded,
  appendBoundedClaimable,
  ensureDir,
  ensurePrivateDir,
  existingPrivateDir,
} from '../../../src/io/files.js';
import { RefusedFile } from '../../../src/io/read-capped.js';
import { inChild } from './in-child.js';

describe('bounded appends', () => {
  it('create a user-only file (and its directory), append to it, and rotate it past the cap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-append-'));
    const log = join(dir, 'sub', 'x.log');
    appendBounded(log, 'one\n', 10);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    appendBounded(log, 'two\n', 10);
    expect(readFileSync(log, 'utf8')).toBe('one\ntwo\n');
    appendBounded(log, 'three\n', 10);
    expect(readFileSync(`${log}.1`, 'utf8')).toBe('one\ntwo\n');
    expect(readFileSync(log, 'utf8')).toBe('three\n');
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });

  it('make an existing file that others could read user-only, and keep its content', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-append-'));
    const log = join(dir, 'y.log');
    writeFileSync(log, 'old\n');
    chmodSync(log, 0o644);
    appendBounded(log, 'new\n', 1000);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(readFileSync(log, 'utf8')).toBe('old\nnew\n');
  });

  it('a claimable append past the cap sets the file aside under a spool name of its own each time, losing nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-append-'));
    const spool = join(dir, 'spool', 'hooks.jsonl');
    for (const line of ['aa\n', 'bb\n', 'cc\n']) appendBoundedClaimable(spool, line, 5);
    const names = readdirSync(join(dir, 'spool')).sort();
    expect(names).toHaveLength(3);
    expect(names.every((n) => n === 'hooks.jsonl' || /^hooks\.jsonl\.[0-9a-z]+-\d+-\d+\.jsonl$/.test(n))).toBe(true);
    const lines = names.map((n) => readFileSync(join(dir, 'spool', n), 'utf8')).join('');
    expect(lines.split('\n').filter(Boolean).sort()).toEqual(['aa', 'bb', 'cc']);
    expect(readFileSync(spool, 'utf8')).toBe('cc\n');
  });

  it('a claimable append recreates a file a drainer took away between two appends', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-append-'));
    const spool = join(dir, 'spool', '1-a.jsonl');
    appendBoundedClaimable(spool, 'a\n', 1000);
    // A drainer's claim: the file is renamed away.
    renameSync(spool, join(dir, 'spool', '1-a.jsonl.draining'));
    appendBoundedClaimable(spool, 'b\n', 1000);
    expect(existsSync(spool)).toBe(true);
    expect(readFileSync(spool, 'utf8')).toBe('b\n');
    expect(statSync(spool).mode & 0o777).toBe(0o600);
  });
});

describe('special files where tiergate writes', () => {
  // In a child process: a blocking open of a FIFO (for writing, with no reader) would stop this worker for good.
  it('an append to a FIFO, or the ledger as one, fails at once, never waited on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-append-'));
    const fifo = join(dir, 'diagnostics.log');
    execFileSync('mkfifo', [fifo]);
    const got = inChild<Record<string, string>>(`
      const { appendBounded, ensureFile } = await import(src + '/io/files.ts');
      const out = {};
      const path = ${JSON.stringify(fifo)};
      try { appendBounded(path, 'x\\n', 1000); out.append = 'written'; } catch (e) { out.append = e.code; }
      try { ensureFile(path); out.ensure = 'accepted'; } catch (e) { out.ensure = e.kind; }
      return out;`);
    // No reader: the non-blocking open says ENXIO; with one it would open and fstat would refuse it.
    expect(got).toEqual({ append: 'ENXIO', ensure: 'FIFO' });
  });

  it('ensurePrivateDir creates a user-only directory, tightens an open one, and refuses a link or a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-pdir-'));
    ensurePrivateDir(join(dir, 'a', 'b'));
    expect(statSync(join(dir, 'a', 'b')).mode & 0o777).toBe(0o700);
    mkdirSync(join(dir, 'open'), { mode: 0o755 });
    chmodSync(join(dir, 'open'), 0o755);
    expect(existingPrivateDir(join(dir, 'open'))).toBe(true);
    expect(statSync(join(dir, 'open')).mode & 0o777).toBe(0o700);
    expect(existingPrivateDir(join(dir, 'absent'))).toBe(false);
    expect(existsSync(join(dir, 'absent'))).toBe(false);
    symlinkSync(join(dir, 'open'), join(dir, 'link'));
    expect(() => ensurePrivateDir(join(dir, 'link'))).toThrow(expect.objectContaining({ kind: 'symbolic link' }));
    expect(() => existingPrivateDir(join(dir, 'link'))).toThrow(RefusedFile);
    writeFileSync(join(dir, 'file'), '');
    expect(() => ensurePrivateDir(join(dir, 'file'))).toThrow(expect.objectContaining({ kind: 'regular file' }));
  });
});

describe('ensureDir where mkdir(2) says ENOENT although the parent exists (/proc)', () => {
  it('throws ENOENT naming the path instead of looping (Node 20 recursive mkdir never returned)', () => {
    // In a child: the old loop never yields, so in this worker it would hang the run instead of failing the test.
    const got = inChild<string[]>(
      `const { ensureDir, ensurePrivateDir } = await import(src + '/io/files.ts');
       return ['/proc/nope/a/b', '/proc/self/data'].flatMap((d) => [ensureDir, ensurePrivateDir].map((f) => {
         try { f(d); return 'created'; } catch (err) { return err.code + ' ' + err.path; }
       }));`,
      5_000,
    );
    expect(got).toEqual(['ENOENT /proc/nope', 'ENOENT /proc/nope', 'ENOENT /proc/self/data', 'ENOENT /proc/self/data']);
  });

  it('still creates a missing chain, user-only', () => {
    const base = mkdtempSync(join(tmpdir(), 'tg-ensuredir-'));
    ensureDir(join(base, 'a', 'b', 'c'));
    expect(statSync(join(base, 'a', 'b', 'c')).isDirectory()).toBe(true);
    expect(statSync(join(base, 'a')).mode & 0o777).toBe(0o700);
    ensureDir(join(base, 'a', 'b', 'c'));
  });
});
