/**
 * Housekeeping of the data dir, run with every drain (hooks at completion and session end, every CLI run): the data
 * dir made user-only (one an older tiergate or another tool left open to others).
 */
import { diagnose, errorText } from '../io/diagnostics.js';
import { restrictDirToUser } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';

/** Never throws: what cannot be tidied is one diagnostic line and waits for the next drain. */
export function tidyDataDir(env: Env): void {
  const p = paths(env);
  try {
    restrictDirToUser(p.data);
  } catch (err) {
    diagnose('warn', 'observer:tidy', errorText(err), { dir: p.data }, env);
  }
}
