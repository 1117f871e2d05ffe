/**
 * The hook bundles' half of loader.ts: writes V8's compiled code for the next hook process, atomically, and removes
 * the files of other builds of the same bundle (each tiergate upgrade would leave one behind). Files of the same build
 * for another Node version or other flags stay: a user who switches between two keeps both warm.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { diagnose, errorText } from '../io/diagnostics.js';
import { removeFile, writeFileAtomic } from '../io/files.js';

export function saveCodeCache(path: string, data: Buffer): void {
  try {
    writeFileAtomic(path, data);
    const dir = dirname(path);
    const name = basename(path);
    const build = /^(hook-[a-z]+-[0-9a-z]+)-/.exec(name)?.[1];
    if (!build) return;
    const bundle = build.slice(0, build.lastIndexOf('-') + 1);
    for (const other of readdirSync(dir)) {
      if (other.startsWith(bundle) && !other.startsWith(`${build}-`) && other.endsWith('.v8')) removeFile(join(dir, other));
    }
  } catch (err) {
    diagnose('warn', 'hook:code-cache', `not saved: ${errorText(err)}`, { path });
  }
}
