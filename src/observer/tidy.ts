/**
 * Housekeeping of the data dir, run with every drain (hooks at completion and session end, every CLI run): the data
 * dir made user-only, and the temp files atomic writes left behind removed. A write the disk filled up removes its own
 * temp file (files.ts writeFileAtomic); one killed between open and rename cannot, and no later write of that name
 * would ever take it away. Also what nothing writes or reads any more: the command hook's files from before issue 17
 * (its dispatch memo directory, its own V8 code-cache files), and the compile cache's subdirectories not written for
 * 30 days. And the running children's files (child-spend/: a transcript's read offset, a child's stopped marker) not
 * written for CHILD_SPEND_MAX_AGE_MS: one is made per child and nothing else removes them.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
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
 * Node's compile cache keeps a subdirectory per Node version (and V8 flags) and never prunes them. Node writes into
 * one only when it compiles something new, so a version still run may go untouched this long too: it then recompiles
 * once.
 */
export const COMPILE_CACHE_MAX_AGE_MS = 30 * 86_400_000;
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

/** The old loader's files, and Node's subdirectories untouched for COMPILE_CACHE_MAX_AGE_MS; looked at with lstat. */
function pruneCodeCache(dir: string, now: number): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory() ? st.mtimeMs < now - COMPILE_CACHE_MAX_AGE_MS : OLD_CODE_CACHE_FILE.test(name))
      removeNoFollow(path);
  }
}
