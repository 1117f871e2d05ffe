/**
 * The lost-line race appendBoundedClaimable's retry fixes (src/io/files.ts; found by bench/ledger-concurrency.mjs,
 * 2 of 3,200 completions lost with 64 writers): a writer opens its spool file, a drainer claims it (rename, read,
 * delete) before the write lands, and the line goes into a file nobody will read again. Here the drainer's claim runs
 * deterministically in that window: inside the writer's writeSync to the spool file, before the bytes go out.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const race = vi.hoisted(() => ({ path: null as string | null, fired: 0, drained: [] as string[] }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  /** The drainer's claim, between the writer's open and its write to the same file. */
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    if (race.path && race.fired === 0) {
      const onPath = fs.lstatSync(race.path, { throwIfNoEntry: false });
      if (onPath && onPath.ino === fs.fstatSync(fd).ino) {
        race.fired += 1;
        const claimed = `${race.path}.draining`;
        fs.renameSync(race.path, claimed);
        race.drained.push(fs.readFileSync(claimed, 'utf8'));
        fs.unlinkSync(claimed);
      }
    }
    return (fs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, writeSync, default: { ...fs, writeSync } };
});

const { appendBoundedClaimable } = await import('../../../src/io/files.js');

/** Every line either the drainer read or the spool still holds: what the ledger will ever see. */
const seen = (path: string) =>
  [...race.drained, existsSync(path) ? readFileSync(path, 'utf8') : ''].join('').split('\n').filter(Boolean);

beforeEach(() => {
  race.path = null;
  race.fired = 0;
  race.drained = [];
});

describe('appendBoundedClaimable: a drainer claims the file between open and write', () => {
  it('onto an existing spool file: the line is written again under the path, none is lost', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-claim-race-'));
    mkdirSync(join(dir, 'spool'));
    const spool = join(dir, 'spool', '1-a.jsonl');
    writeFileSync(spool, 'a\n', { mode: 0o600 });
    race.path = spool;
    appendBoundedClaimable(spool, 'b\n', 1000);
    expect(race.fired).toBe(1); // the claim did happen in the window (else this test proves nothing)
    expect(race.drained).toEqual(['a\n']); // the drainer's read came before the write
    expect(seen(spool)).toEqual(['a', 'b']);
    expect(readFileSync(spool, 'utf8')).toBe('b\n');
  });

  it('onto a spool file the append itself creates', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-claim-race-'));
    const spool = join(dir, 'spool', '2-b.jsonl');
    race.path = spool;
    appendBoundedClaimable(spool, 'only\n', 1000);
    expect(race.fired).toBe(1);
    expect(race.drained).toEqual(['']);
    expect(seen(spool)).toEqual(['only']);
  });
});
