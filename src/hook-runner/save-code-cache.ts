/**
 * The hook bundles' half of loader.ts: writes V8's compiled code for the next hook process, atomically, and removes
 * the files of other builds of the same bundle (each tiergate upgrade would leave one behind). Files of the same build
 * for another Node version or other flags stay: a user who switches between two keeps both warm.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { diagnose, errorText } from '../io/diagnostics.js';
import { removeFile, writeFileAtomic } from '../io/files.js';

/** `path` is loader.ts's codeCachePath(env, bundle, buildId, variant): files of the same bundle under another build id go. */
export function saveCodeCache(path: string, data: Buffer, bundle: string, buildId: string): void {
  try {
    writeFileAtomic(path, data);
    const dir = dirname(path);
    const name = basename(path);
    for (const other of readdirSync(dir)) {
      if (other !== name && other.endsWith('.v8') && other.startsWith(`${bundle}-`) && !other.startsWith(`${bundle}-${buildId}-`)) removeFile(join(dir, other));
    }
  } catch (err) {
    diagnose('warn', 'hook:code-cache', `not saved: ${errorText(err)}`, { path });
  }
}
