/**
 * Housekeeping of the data dir, run with every drain (hooks at completion and session end, every CLI run): the data
 * dir made user-only, and the temp files atomic writes left behind removed. A write the disk filled up removes its own
 * temp file (files.ts writeFileAtomic); one killed between open and rename cannot, and no later write of that name
 * would ever take it away.
 */
import { diagnose, errorText } from '../io/diagnostics.js';
import { existingPrivateDir, pruneTempFiles, restrictDirToUser } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';

/** Never throws: what cannot be tidied is one diagnostic line and waits for the next drain. */
export function tidyDataDir(env: Env, now = Date.now()): void {
  const p = paths(env);
  try {
    restrictDirToUser(p.data);
    pruneTempFiles(p.data, now);
  } catch (err) {
    diagnose('warn', 'observer:tidy', errorText(err), { dir: p.data }, env);
  }
  for (const dir of [p.codeCacheDir, p.priceCacheDir]) {
    try {
      if (existingPrivateDir(dir)) pruneTempFiles(dir, now);
    } catch (err) {
      diagnose('warn', 'observer:tidy', errorText(err), { dir }, env);
    }
  }
}
