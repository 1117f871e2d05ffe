/**
 * The hook bundles' half of loader.ts: writes V8's compiled code for the next hook process, atomically, and removes
 * the files of other builds (each tiergate upgrade would leave some behind). Files of the same build
 * for another Node version or other flags stay: a user who switches between two keeps both warm.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { diagnose, errorText } from '../io/diagnostics.js';
import { ensurePrivateDir, removeFile, writeFileAtomic } from '../io/files.js';

/**
 * `path` is loader.ts's codeCachePath(env, bundle, buildId, variant); `current` the `<bundle>-<buildId>-` file name
 * prefixes of this build's bundles. Every other hook cache file goes: older builds', and bundles this build no longer
 * has (one dispatch bundle became one per harness).
 */
export function saveCodeCache(path: string, data: Buffer, current: readonly string[]): void {
  try {
    const dir = dirname(path);
    // A link in the directory's place is refused: the clean-up below would delete its target's `hook-*.v8` files.
    ensurePrivateDir(dir);
    writeFileAtomic(path, data);
    const name = basename(path);
    for (const other of readdirSync(dir)) {
      if (
        other !== name &&
        other.startsWith('hook-') &&
        other.endsWith('.v8') &&
        !current.some((p) => other.startsWith(p))
      )
        removeFile(join(dir, other));
    }
  } catch (err) {
    diagnose('warn', 'hook:code-cache', `not saved: ${errorText(err)}`, { path });
  }
}
