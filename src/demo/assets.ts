/**
 * The demo's recorded payloads, shipped in the package under data/demo/ (copied from the project's test fixtures,
 * which were captured from the real harness binaries). Read-only; located relative to this module so it works from
 * dist/cli.js (one level below the package root) and from src/demo/*.ts under tsx (two levels).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function demoDataDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['..', '../..']) {
    const dir = join(here, up, 'data', 'demo');
    if (existsSync(join(dir, 'config.json'))) return dir;
  }
  throw new Error(`demo data not found near ${here} (expected data/demo/ in the package)`);
}

export function demoText(rel: string): string {
  return readFileSync(join(demoDataDir(), rel), 'utf8');
}

export function demoJson<T = Record<string, any>>(rel: string): T {
  return JSON.parse(demoText(rel)) as T;
}
