// Writes src/contracts/hot-shapes.generated.ts: the Shapes of the schemas the dispatch hook checks without zod
// (src/contracts/shape.ts). Run after changing one of them: `npm run shapes`. A test fails while the file is stale.
import { join } from 'node:path';
import { hotPathShapes, serialiseShapes } from '../src/adapters/hot-shapes.js';
import { writeFileAtomic } from '../src/io/files.js';

const out = join(import.meta.dirname, '..', 'src/contracts/hot-shapes.generated.ts');
writeFileAtomic(out, serialiseShapes(hotPathShapes()), { mode: 0o644 });
process.stdout.write(`${out}\n`);
