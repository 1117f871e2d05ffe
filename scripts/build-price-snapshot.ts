/**
 * `npm run prices:snapshot [source-dir]`: regenerates data/prices-snapshot.json from the four offline price files
 * (default: scripts/price-sources/). The product reads only the snapshot; test/unit/prices/snapshot.test.ts fails
 * when the committed file is not what this script produces.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../src/io/files.js';
import { serialiseCatalog } from '../src/prices/merge.js';
import { buildSnapshot, snapshotInputs } from '../src/prices/snapshot.js';

const root = join(import.meta.dirname, '..');
const dir = process.argv[2] ?? join(root, 'scripts/price-sources');
const read = (f: string): unknown => JSON.parse(readFileSync(join(dir, f), 'utf8'));

const result = buildSnapshot(snapshotInputs(read));
const out = join(root, 'data/prices-snapshot.json');
writeFileAtomic(out, serialiseCatalog(result.catalog), { mode: 0o644 });

const size = statSync(out).size;
process.stdout.write(
  `${out}: ${Object.keys(result.catalog.models).length} models, ${size} bytes, version ${result.catalog.version}\n`,
);
for (const [name, n] of Object.entries(result.report.contributed)) {
  process.stdout.write(`  ${name}: ${n} rows used, ${result.report.shadowed[name]} shadowed by a better source\n`);
}
for (const [name, notes] of Object.entries(result.notes))
  for (const n of notes) process.stdout.write(`  ${name}: ${n}\n`);
