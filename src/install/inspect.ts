/** What a harness's doctor checks (src/adapters/<harness>/doctor.ts) share: reading back what an install left. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Check } from '../contracts/check.js';
import { readText, sha256 } from './backup.js';

/** A finding of the doctor's harness section. */
export const harnessCheck = (
  name: string,
  status: Check['status'],
  detail: string,
  data?: Record<string, unknown>,
): Check => ({ section: 'harness', name, status, detail, data });

/** The tiergate package a path inside it belongs to (for "installed from where" and its version). */
export function packageOf(path: string): string | null {
  let dir = path;
  for (let i = 0; i < 6; i++) {
    dir = dirname(dir);
    const pkg = readText(join(dir, 'package.json'));
    if (pkg?.includes('"name": "tiergate"') || pkg?.includes('"name":"tiergate"')) return dir;
  }
  return null;
}

export function sameFile(a: string, b: string): boolean {
  try {
    return sha256(readFileSync(a)) === sha256(readFileSync(b));
  } catch {
    return false;
  }
}
