import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTextCapped, TooLarge } from '../../../src/io/read-capped.js';

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

  it('takes a file of exactly the cap and refuses one byte more, without reading the rest', () => {
    expect(readTextCapped(file('exact', 'x'.repeat(1000)), 1000)).toHaveLength(1000);
    expect(() => readTextCapped(file('over', 'x'.repeat(1001)), 1000)).toThrow(TooLarge);
    expect(() => readTextCapped(file('huge', Buffer.alloc(20 * 1024 * 1024)), 1000)).toThrow('larger than 1000 bytes');
  });

  it('throws fs errors as they are', () => {
    expect(() => readTextCapped(join(dir, 'missing'), 10)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(() => readTextCapped(dir, 10)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });
});
