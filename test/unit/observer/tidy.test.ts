/**
 * The drain's housekeeping of what the command hook left before issue 17 (the dispatch memo directory, the old
 * loader's `hook-*.v8` code-cache files), of the hook's `.v8cache` files unused for 30 days and of Node's compile-cache
 * subdirectories (the hook's cache before session 13) no version has written for 30 days.
 * Links are removed as links; their targets stay whole.
 */
import {
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { paths } from '../../../src/io/paths.js';
import { runObserver } from '../../../src/collect/drain.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import {
  CHILD_SPEND_MAX_AGE_MS,
  CODE_CACHE_MAX_AGE_MS,
  OLD_MEMO_DIR,
  tidyDataDir,
} from '../../../src/observer/tidy.js';
import { testPricer } from './helpers.js';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

/** A data dir with its code-cache directory, and a directory outside it that links may point at. */
function sandbox() {
  const root = mkdtempSync(join(tmpdir(), 'tg-tidy-'));
  homes.push(root);
  const env = { TIERGATE_HOME: join(root, 'tg'), HOME: root };
  const p = paths(env);
  mkdirSync(p.codeCacheDir, { recursive: true, mode: 0o700 });
  const outside = join(root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'keep.txt'), 'keep me');
  return { env, p, outside };
}

const OLD_V8 = [
  'hook-dispatch-codex-1a2b3c-codex-nodev20.20.2-x64.v8',
  'hook-events-1a2b3c-events-nodev22.23.3-x64.v8',
];

const ageDays = (path: string, days: number, now: number) => {
  const t = new Date(now - days * 86_400_000);
  utimesSync(path, t, t);
};

describe('tidy: the old dispatch memo directory', () => {
  it('is removed with its files; a link inside is removed, not followed', () => {
    const { env, p, outside } = sandbox();
    const memo = join(p.data, OLD_MEMO_DIR);
    mkdirSync(memo, { mode: 0o700 });
    writeFileSync(join(memo, 'claude-5f3a.json'), '{}');
    writeFileSync(join(memo, 'codex-77.json.tmp-12-1700000000000'), '{');
    symlinkSync(outside, join(memo, 'codex-99.json'));
    tidyDataDir(env);
    expect(existsSync(memo)).toBe(false);
    expect(readdirSync(outside)).toEqual(['keep.txt']);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep me');
  });

  it('a link in its place is removed as a link: its target keeps its files', () => {
    const { env, p, outside } = sandbox();
    const memo = join(p.data, OLD_MEMO_DIR);
    symlinkSync(outside, memo);
    tidyDataDir(env);
    expect(lstatSync(memo, { throwIfNoEntry: false })).toBeUndefined();
    expect(readdirSync(outside)).toEqual(['keep.txt']);
  });
});

describe("tidy: the old loader's code-cache files", () => {
  it("go; Node's subdirectories and other names stay", () => {
    const { env, p } = sandbox();
    for (const n of OLD_V8) writeFileSync(join(p.codeCacheDir, n), 'TGV8');
    const node = join(p.codeCacheDir, 'v22.23.3-x64-5e6f7a8b-1000');
    mkdirSync(node);
    writeFileSync(join(node, '3c4d5e6f'), 'cached');
    writeFileSync(join(p.codeCacheDir, 'notes.v8.txt'), 'not ours');
    tidyDataDir(env);
    expect(readdirSync(p.codeCacheDir).sort()).toEqual(['notes.v8.txt', 'v22.23.3-x64-5e6f7a8b-1000']);
    expect(readdirSync(node)).toEqual(['3c4d5e6f']);
  });

  it('a link in the place of one is removed as a link: its target is untouched', () => {
    const { env, p, outside } = sandbox();
    const link = join(p.codeCacheDir, OLD_V8[0]!);
    symlinkSync(join(outside, 'keep.txt'), link);
    tidyDataDir(env);
    expect(lstatSync(link, { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep me');
  });
});

describe("tidy: Node's compile-cache subdirectories", () => {
  it('one untouched for 30 days goes with its files; a younger one stays, as does a link however old', () => {
    const { env, p, outside } = sandbox();
    const now = Date.now();
    const stale = join(p.codeCacheDir, '1c9e3f0a');
    const fresh = join(p.codeCacheDir, '7d2b6e41');
    for (const d of [stale, fresh]) {
      mkdirSync(d);
      writeFileSync(join(d, 'entry'), 'cached');
    }
    ageDays(stale, 31, now);
    ageDays(fresh, 29, now);
    const link = join(p.codeCacheDir, 'v20-linked');
    symlinkSync(outside, link);
    ageDays(outside, 90, now);
    lutimesSync(link, new Date(now - 90 * 86_400_000), new Date(now - 90 * 86_400_000));
    tidyDataDir(env, now);
    expect(readdirSync(p.codeCacheDir).sort()).toEqual(['7d2b6e41', 'v20-linked']);
    expect(readdirSync(fresh)).toEqual(['entry']);
    expect(readdirSync(outside)).toEqual(['keep.txt']);
    expect(CODE_CACHE_MAX_AGE_MS).toBe(30 * 86_400_000);
  });

  it('a code-cache directory that is a link is not looked into', () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-tidy-'));
    homes.push(root);
    const env = { TIERGATE_HOME: join(root, 'tg'), HOME: root };
    const p = paths(env);
    mkdirSync(p.data, { recursive: true, mode: 0o700 });
    const outside = join(root, 'outside');
    mkdirSync(join(outside, 'old'), { recursive: true });
    writeFileSync(join(outside, OLD_V8[0]!), 'theirs');
    ageDays(join(outside, 'old'), 90, Date.now());
    symlinkSync(outside, p.codeCacheDir);
    tidyDataDir(env);
    expect(readdirSync(outside).sort()).toEqual([OLD_V8[0], 'old'].sort());
  });
});

describe("tidy: the hook's code-cache files", () => {
  it('one neither read nor written for 30 days goes; one read lately stays, however old its mtime; a link stays', () => {
    const { env, p, outside } = sandbox();
    const now = Date.now();
    const name = (mtime: number) => `hook-dispatch-codex-66778-${mtime}-nodev20.20.2-x64.v8cache`;
    const unused = join(p.codeCacheDir, name(1));
    const read = join(p.codeCacheDir, name(2));
    for (const f of [unused, read]) writeFileSync(f, 'TGV8');
    ageDays(unused, 31, now);
    const old = new Date(now - 90 * 86_400_000);
    utimesSync(read, new Date(now - 86_400_000), old);
    const link = join(p.codeCacheDir, name(3));
    symlinkSync(join(outside, 'keep.txt'), link);
    lutimesSync(link, old, old);
    tidyDataDir(env, now);
    expect(readdirSync(p.codeCacheDir).sort()).toEqual([name(2), name(3)]);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep me');
  });
});

describe('the drain tidies', () => {
  it('removes the memo directory, the old code-cache files and a stale compile-cache subdirectory', () => {
    const { env, p } = sandbox();
    const now = Date.now();
    mkdirSync(join(p.data, OLD_MEMO_DIR));
    writeFileSync(join(p.data, OLD_MEMO_DIR, 'claude-1.json'), '{}');
    writeFileSync(join(p.codeCacheDir, OLD_V8[1]!), 'TGV8');
    const stale = join(p.codeCacheDir, '1c9e3f0a');
    mkdirSync(stale);
    ageDays(stale, 40, now);
    const db = openLedger(env);
    try {
      runObserver(env, testPricer(), db);
    } finally {
      db.close();
    }
    expect(existsSync(join(p.data, OLD_MEMO_DIR))).toBe(false);
    expect(readdirSync(p.codeCacheDir)).toEqual([]);
  });
});

describe("tidy: running children's files (child-spend/)", () => {
  it('removes offset files and stopped markers not written for two days; keeps newer ones and links', () => {
    const { env, p, outside } = sandbox();
    const dir = join(p.data, 'child-spend');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const now = Date.now();
    for (const name of ['old.json', 'old.stopped', 'new.json', 'new.stopped']) writeFileSync(join(dir, name), '');
    for (const name of ['old.json', 'old.stopped'])
      ageDays(join(dir, name), CHILD_SPEND_MAX_AGE_MS / 86_400_000 + 1, now);
    symlinkSync(join(outside, 'keep.txt'), join(dir, 'link.json'));
    tidyDataDir(env, now);
    expect(readdirSync(dir).sort()).toEqual(['link.json', 'new.json', 'new.stopped']);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep me');
  });
});
