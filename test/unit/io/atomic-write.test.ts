/**
 * A full disk (or any failing step) in an atomic write must not leave its `*.tmp-<pid>-<ms>` file behind, nor replace
 * the file with a short one; temp files of writers killed before their rename are pruned by age, by one helper that
 * the drain's tidying runs. ENOSPC is injected through node:fs (no root, no tiny tmpfs needed).
 */
import * as realFs from 'node:fs';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

type Fault = 'none' | 'enospc' | 'short-then-enospc' | 'short' | 'fsync-eio';
const fault = vi.hoisted(() => ({ mode: 'none' as Fault, calls: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const err = (code: string) => Object.assign(new Error(`${code}: injected`), { code });
  return {
    ...fs,
    writeSync: (...args: Parameters<typeof fs.writeSync>) => {
      if (fault.mode === 'enospc') throw err('ENOSPC');
      if (fault.mode === 'short-then-enospc' || fault.mode === 'short') {
        // 'short-then-enospc': the disk takes 10 bytes, then is full (what write(2) does as space runs out); 'short':
        // every call takes at most 10 bytes and none fails.
        if (fault.mode === 'short-then-enospc' && fault.calls++ > 0) throw err('ENOSPC');
        const [fd, buf, off, len] = args as unknown as [number, Uint8Array, number | undefined, number | undefined];
        const from = off ?? 0;
        return fs.writeSync(fd, buf, from, Math.min(10, len ?? buf.length - from));
      }
      return (fs.writeSync as (...a: unknown[]) => number)(...args);
    },
    fsyncSync: (fd: number) => {
      if (fault.mode === 'fsync-eio') throw err('EIO');
      return fs.fsyncSync(fd);
    },
  };
});

const { pruneTempFiles, writeFileAtomic } = await import('../../../src/io/files.js');
const { runObserver } = await import('../../../src/collect/drain.js');
const { openLedger } = await import('../../../src/observer/ledger/open.js');
const { paths } = await import('../../../src/io/paths.js');
const { testPricer } = await import('../observer/helpers.js');

afterEach(() => {
  fault.mode = 'none';
  fault.calls = 0;
});

const temps = (dir: string) => readdirSync(dir).filter((n) => /\.tmp-\d+-\d+$/.test(n));

describe('writeFileAtomic when a step fails', () => {
  it.each<[Fault, string]>([
    ['enospc', 'ENOSPC'],
    ['short-then-enospc', 'ENOSPC'],
    ['fsync-eio', 'EIO'],
  ])('%s: throws, leaves no temp file, and the old file as it was', (mode, code) => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-atomic-'));
    const file = join(dir, 'catalog.json');
    writeFileSync(file, 'old content');
    fault.mode = mode;
    expect(() => writeFileAtomic(file, 'x'.repeat(100_000))).toThrow(expect.objectContaining({ code }));
    fault.mode = 'none';
    expect(temps(dir)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('old content');
  });

  it('a short write is completed, not committed short', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-atomic-'));
    const file = join(dir, 'a.json');
    const data = 'y'.repeat(100_000);
    // Every call writes at most 10 bytes (write(2) may return short): the whole text must still land.
    fault.mode = 'short';
    writeFileAtomic(file, data);
    fault.mode = 'none';
    expect(readFileSync(file, 'utf8')).toBe(data);
    expect(temps(dir)).toEqual([]);
  });
});

describe('pruneTempFiles', () => {
  /** Two minutes old: past the minute an atomic write's temp file is given (files.ts ORPHAN_TEMP_MS). */
  const TWO_MIN_AGO = (now: number) => new Date(now - 120_000);
  const old = (path: string, now: number) => utimesSync(path, TWO_MIN_AGO(now), TWO_MIN_AGO(now));

  it('removes temp files older than a minute, keeps younger ones and everything else; a linked one goes as a link', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-prune-'));
    const now = Date.now();
    const outside = join(dir, '..', `${dir.split('/').pop()}-target`);
    writeFileSync(outside, 'keep me');
    for (const n of ['a.json.tmp-12-1700000000000', 'b.v8.tmp-3-1700000000001', 'c.json', 'd.json.tmp-notours']) {
      writeFileSync(join(dir, n), 'x');
      old(join(dir, n), now);
    }
    writeFileSync(join(dir, 'e.json.tmp-99-1800000000000'), 'x'); // young: its writer may be at work
    symlinkSync(outside, join(dir, 'f.json.tmp-7-1700000000002'));
    realFs.lutimesSync(join(dir, 'f.json.tmp-7-1700000000002'), TWO_MIN_AGO(now), TWO_MIN_AGO(now));
    expect(pruneTempFiles(dir, now)).toBe(3);
    expect(readdirSync(dir).sort()).toEqual(['c.json', 'd.json.tmp-notours', 'e.json.tmp-99-1800000000000']);
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    expect(pruneTempFiles(join(dir, 'absent'), now)).toBe(0);
  });

  it('the drain prunes orphans in data/, code-cache/ and prices/', () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-prune-'));
    const env = { TIERGATE_HOME: join(root, 'tg'), HOME: root };
    const p = paths(env);
    const now = Date.now();
    const planted: string[] = [];
    for (const dir of [p.data, join(p.data, 'code-cache'), p.priceCacheDir]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const f = join(dir, `x.tmp-${process.pid}-${now - 120_000}`);
      writeFileSync(f, 'partial');
      old(f, now);
      planted.push(f);
    }
    const db = openLedger(env);
    try {
      runObserver(env, testPricer(), db);
    } finally {
      db.close();
    }
    for (const f of planted) expect(existsSync(f)).toBe(false);
  });
});
