/**
 * Housekeeping of the data dir, run with every drain (hooks at completion and session end, every CLI run): the data
 * dir made user-only, and the temp files atomic writes left behind removed. A write the disk filled up removes its own
 * temp file (files.ts writeFileAtomic); one killed between open and rename cannot, and no later write of that name
 * would ever take it away. Also what nothing writes or reads any more: the command hook's files from before issue 17
 * (its dispatch memo directory, its own V8 code-cache files), and code-cache entries not used for 30 days. And the
 * running children's files (child-spend/: a transcript's read offset, a child's stopped marker) not written for
 * CHILD_SPEND_MAX_AGE_MS: one is made per child and nothing else removes them.
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { CODE_CACHE_SUFFIX } from '../io/code-cache-file.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { existingPrivateDir, pruneTempFiles, removeNoFollow, restrictDirToUser } from '../io/files.js';
import { journalDir } from './spend-journal.js';
import { CHILD_SPEND_DIR } from './child-spend.js';
import { paths, type Env } from '../io/paths.js';

/** The old dispatch memo's directory in the data dir (removed with issue 17 item 3). */
export const OLD_MEMO_DIR = 'dispatch-memo';
/** The old loader's code-cache files (`hook-<bundle>-…-node<version>-<arch>.v8`), beside Node's own subdirectories. */
const OLD_CODE_CACHE_FILE = /^hook-.*\.v8$/;
/**
 * What `<data dir>/code-cache/` may hold that no hook will read again, removed once untouched this long: the hook's
 * cache files (io/code-cache-file.ts), one per bundle build, Node version and flags, of which each upgrade leaves one
 * behind (the hook never deletes another's file: two plugin copies of one version differ in mtime, and would delete
 * each other's at every write); and the subdirectories of Node's compile cache, which the hook used before session 13
 * and Node never prunes. A cache file is read by every hook that uses it, so its access time says it is in use where
 * the file system keeps one (relatime: once a day); where it does not, a file still in use is written once more.
 */
export const CODE_CACHE_MAX_AGE_MS = 30 * 86_400_000;
/**
 * A running child's offset file is rewritten at each of its checked tool calls, so one this old belongs to a child long
 * ended (a reservation expires after 2 h). Removing one too early costs a re-read from the transcript's start (bounded)
 * or a second stopped line, which the ledger keeps once (same key).
 */
export const CHILD_SPEND_MAX_AGE_MS = 2 * 86_400_000;

/** Never throws: what cannot be tidied is one diagnostic line and waits for the next drain. */
export function tidyDataDir(env: Env, now = Date.now()): void {
  const p = paths(env);
  try {
    restrictDirToUser(p.data);
    pruneTempFiles(p.data, now);
    removeNoFollow(join(p.data, OLD_MEMO_DIR));
  } catch (err) {
    diagnose('warn', 'observer:tidy', errorText(err), { dir: p.data }, env);
  }
  // The spend journal too (spend-journal.ts): a completion writer killed mid-write leaves its temp file there.
  const childSpend = join(p.data, CHILD_SPEND_DIR);
  for (const dir of [p.codeCacheDir, p.priceCacheDir, journalDir(env), childSpend]) {
    try {
      if (!existingPrivateDir(dir)) continue;
      pruneTempFiles(dir, now);
      if (dir === p.codeCacheDir) pruneCodeCache(dir, now);
      if (dir === childSpend) pruneOlderThan(dir, now - CHILD_SPEND_MAX_AGE_MS);
    } catch (err) {
      diagnose('warn', 'observer:tidy', errorText(err), { dir }, env);
    }
  }
}

/** Regular files in `dir` last written before `before` (lstat: a link is left alone, and never followed). */
function pruneOlderThan(dir: string, before: number): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st?.isFile() && st.mtimeMs < before) removeNoFollow(path);
  }
}

/** The old loader's files, and cache files and Node's subdirectories untouched for CODE_CACHE_MAX_AGE_MS (lstat). */
function pruneCodeCache(dir: string, now: number): void {
  const stale = now - CODE_CACHE_MAX_AGE_MS;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    const unused = Math.max(st.mtimeMs, st.atimeMs) < stale;
    if (st.isDirectory() ? st.mtimeMs < stale : OLD_CODE_CACHE_FILE.test(name) || (isCacheFile(name, st) && unused))
      removeNoFollow(path);
  }
}

const isCacheFile = (name: string, st: Stats) => name.endsWith(CODE_CACHE_SUFFIX) && st.isFile();
