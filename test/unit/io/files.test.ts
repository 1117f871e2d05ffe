import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendBounded, appendBoundedClaimable } from '../../../src/io/files.js';

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
