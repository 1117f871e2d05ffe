import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTextCapped, readTextHead, RefusedFile, TooLarge } from '../../../src/io/read-capped.js';
import { inChild } from './in-child.js';

describe('readTextCapped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-readcapped-'));
  const file = (name: string, data: string | Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, data);
    return p;
  };

  it('reads small, empty and multi-chunk files whole, UTF-8 split across chunks included', () => {
    expect(readTextCapped(file('small', 'héllo'), 100)).toBe('héllo');
    expect(readTextCapped(file('empty', ''), 100)).toBe('');
    // The first read takes 1 MiB: this puts the 2-byte é across its end.
    const big = `${'a'.repeat(1024 * 1024 - 1)}é${'b'.repeat(3 * 1024 * 1024)}`;
    expect(readTextCapped(file('big', big), 8 * 1024 * 1024)).toBe(big);
  });

  it('sizes its read from fstat, and still reads what fstat does not show (a size-0 /proc file, a file that grew)', () => {
    // /proc files report size 0 and hold text: read in steps until the end, not taken as empty.
    const status = readTextCapped('/proc/self/status', 1024 * 1024);
    expect(status).toContain('Name:');
    expect(status.length).toBeGreaterThan(100);
    // A file that grows while it is read (a writer appending behind fstat's size) is read to its end in the child:
    // the first buffer is the fstat size + 1, filled whole, so the loop goes on.
    const grows = join(dir, 'grows');
    writeFileSync(grows, 'x'.repeat(10));
    const got = inChild<number>(
      `const fs = await import('node:fs');
       const { syncBuiltinESMExports } = await import('node:module');
       const real = fs.default.fstatSync;
       fs.default.fstatSync = (fd) => {
         const st = real(fd);
         fs.default.appendFileSync(${JSON.stringify(grows)}, 'y'.repeat(70000));
         return st;
       };
       syncBuiltinESMExports();
       const { readTextCapped } = await import(src + '/io/read-capped.ts');
       return readTextCapped(${JSON.stringify(grows)}, 1e6).length;`,
    );
    expect(got).toBe(10 + 70000);
    // Exactly at the fstat size, and one byte past the cap found only by reading on.
    expect(readTextCapped(file('sized', 'z'.repeat(4096)), 4096)).toHaveLength(4096);
  });

  it('takes a file of exactly the cap and refuses one byte more, without reading the rest', () => {
    expect(readTextCapped(file('exact', 'x'.repeat(1000)), 1000)).toHaveLength(1000);
    expect(() => readTextCapped(file('over', 'x'.repeat(1001)), 1000)).toThrow(TooLarge);
    expect(() => readTextCapped(file('huge', Buffer.alloc(20 * 1024 * 1024)), 1000)).toThrow('larger than 1000 bytes');
  });

  it('throws fs errors as they are', () => {
    expect(() => readTextCapped(join(dir, 'missing'), 10)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  // In a child process: a blocking open of a FIFO would stop this worker for good, past any vitest timeout.
  it('refuses at once anything that is not a regular file, naming what it is', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    symlinkSync(fifo, join(dir, 'to-fifo'));
    const paths = [fifo, join(dir, 'to-fifo'), dir, '/dev/zero'];
    const got = inChild<{ fn: string; path: string; name: string; code: string; kind: string }[]>(`
      const { readTextCapped, readTextHead } = await import(src + '/io/read-capped.ts');
      const out = [];
      for (const [fn, f] of [['readTextCapped', readTextCapped], ['readTextHead', readTextHead]]) {
        for (const path of ${JSON.stringify(paths)}) {
          try { f(path, 1000); out.push({ fn, path, name: 'none' }); } catch (e) { out.push({ fn, path, name: e.name, code: e.code, kind: e.kind }); }
        }
      }
      return out;`);
    const kinds = ['FIFO', 'FIFO', 'directory', 'character device'];
    expect(got).toEqual(
      ['readTextCapped', 'readTextHead'].flatMap((fn) =>
        paths.map((path, i) => ({ fn, path, name: 'RefusedFile', code: 'EREFUSED', kind: kinds[i] })),
      ),
    );
    expect(() => readTextCapped(dir, 10)).toThrow(RefusedFile);
  });

  it('follows a link to a regular file by default, and refuses it with follow: false (inside the data dir)', () => {
    const target = file('target', 'through');
    symlinkSync(target, join(dir, 'link'));
    expect(readTextCapped(join(dir, 'link'), 100)).toBe('through');
    expect(() => readTextCapped(join(dir, 'link'), 100, { follow: false })).toThrow(
      expect.objectContaining({ kind: 'symbolic link' }),
    );
    expect(readTextCapped(target, 100, { follow: false })).toBe('through');
  });
});

describe('readTextHead', () => {
  it('reads at most the head, whatever the size', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-readhead-'));
    writeFileSync(join(dir, 'a'), 'abcdef');
    expect(readTextHead(join(dir, 'a'), 4)).toBe('abcd');
    expect(readTextHead(join(dir, 'a'), 100)).toBe('abcdef');
  });
});
