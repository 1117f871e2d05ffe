/**
 * Where the bundled price snapshot is: apart from load.ts (which validates catalogs with zod) because the dispatch
 * path stats it on every hook to tell whether the effective file (config/effective.ts) still describes it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { baseName, dirName, joinPath } from '../io/paths.js';

const SNAPSHOT_FILE = 'prices-snapshot.json';
/** The plugin payload directory inside the package (scripts/build.mjs), which Claude Code reads in place. */
export const PLUGIN_DIR = 'harness-plugin';

/**
 * Hooks running from the package's own plugin payload (Claude Code reads its marketplace source in place) use the
 * package's snapshot, not the payload's copy: the effective file names its inputs by path, and the CLI's are the
 * package's, so a copy would make each side find the other's file stale and rebuild it. A copy elsewhere (Codex's
 * plugin cache) keeps its own.
 */
function packageSnapshot(dir: string): string | null {
  if (baseName(dir) !== PLUGIN_DIR) return null;
  const outer = joinPath(dirName(dir), 'data', SNAPSHOT_FILE);
  return existsSync(outer) ? outer : null;
}

/** This module's directory: `__dirname` in the CommonJS hook bundles (no URL round trip per hook), else from the URL. */
const moduleDir = (): string => (typeof __dirname === 'string' ? __dirname : dirName(fileURLToPath(import.meta.url)));

/**
 * The package root holding data/: this module runs from <root>/src/prices under tsx, and from <root>/dist once
 * bundled, so walk up from it until the snapshot is found.
 */
export function findSnapshotPath(start = moduleDir()): string | null {
  let dir = start;
  for (let i = 0; i < 5; i++) {
    const candidate = joinPath(dir, 'data', SNAPSHOT_FILE);
    if (existsSync(candidate)) return packageSnapshot(dir) ?? candidate;
    const parent = dirName(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}
