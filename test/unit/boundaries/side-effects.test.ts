/**
 * The few places that touch the world are named here and nowhere else may do so:
 * one module writes files, one starts processes, one talks HTTP; the routing engine touches nothing.
 * Which module imports child_process or the network is read from the built bundles (bundle-imports.test.ts: a
 * pattern over the source missed `import('node:child_process')`); this file keeps what no import shows: the file
 * writing calls, the global fetch, and the engine's clock and randomness.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const SOURCE_DIRS = ['src', 'plugins', 'extensions'];

function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(relative(root, p));
    }
  };
  for (const d of SOURCE_DIRS) {
    try {
      walk(join(root, d));
    } catch {
      /* directory not there yet */
    }
  }
  return out;
}

const FILE_WRITERS =
  /\b(writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|renameSync|rmSync|unlinkSync|copyFileSync|chmodSync|mkdirSync|openSync\([^)]*['"](w|a)|writeSync|truncateSync|ftruncateSync)\b/;
// The global fetch needs no import, so the metafile cannot see it.
const GLOBAL_FETCH = /\bfetch\(/;

const ALLOWED_WRITERS = new Set(['src/io/files.ts']);
const ALLOWED_HTTP = new Set(['src/refresh/http.ts']);

describe('side-effect boundaries', () => {
  const files = sources();

  it('finds the source tree', () => {
    expect(files).toContain('src/io/files.ts');
  });

  it('only src/io/files.ts writes files', () => {
    const offenders = files.filter(
      (f) => !ALLOWED_WRITERS.has(f) && FILE_WRITERS.test(readFileSync(join(root, f), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  it('only the refresh HTTP module calls the global fetch', () => {
    const offenders = files.filter(
      (f) => !ALLOWED_HTTP.has(f) && GLOBAL_FETCH.test(readFileSync(join(root, f), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  it('the routing engine imports nothing but zod and its own contracts', () => {
    const engine = files.filter((f) => f.startsWith('src/routing-engine/') || f.startsWith('src/contracts/'));
    for (const f of engine) {
      const text = readFileSync(join(root, f), 'utf8');
      const imports = [...text.matchAll(/from ['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      const foreign = imports.filter((i) => !(i === 'zod' || i === 'zod/mini' || i.startsWith('.')));
      expect({ file: f, foreign }).toEqual({ file: f, foreign: [] });
      expect(text).not.toMatch(/Date\.now\(|new Date\(|Math\.random\(|process\./);
    }
  });
});
