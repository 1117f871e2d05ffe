/**
 * A test's child-process worker (a .ts file importing src/), bundled once with esbuild into `.cache/<name>.mjs`: a tsx
 * start-up per process costs seconds on a 2-core machine. Each caller names its own output, since vitest runs test
 * files in parallel workers and two builds of one outfile could hand a process a half-written file.
 */
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '../..');

export async function bundleWorker(entry: string, name: string): Promise<string> {
  const outfile = join(root, '.cache', `${name}.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    external: ['better-sqlite3'],
    logLevel: 'error',
    // As scripts/build.mjs: a worker that reads the harness registry reaches installers that use jsonc-parser (its UMD
    // main requires files a bundle lacks).
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
  });
  return outfile;
}
