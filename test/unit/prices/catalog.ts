/** The committed bundled snapshot, for tests (the product loads it through src/prices/load.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CatalogSchema, type Catalog } from '../../../src/contracts/prices.js';

export const ROOT = join(import.meta.dirname, '../../..');
export const SNAPSHOT_PATH = join(ROOT, 'data/prices-snapshot.json');
export const bundled: Catalog = CatalogSchema.parse(JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8')));
