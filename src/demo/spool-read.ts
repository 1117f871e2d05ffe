/** Reads the demo sandbox's spool (read-only) so each replayed dispatch can be shown with the decision it recorded. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { paths, type Env } from '../io/paths.js';
import { SpoolRecordSchema, type SpoolRecord } from '../contracts/spool.js';

export function spoolLines(env: Env): string[] {
  const dir = paths(env).spoolDir;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /\.jsonl(\.1)?$/.test(n)).sort();
  } catch {
    return [];
  }
  return names.flatMap((n) => readFileSync(join(dir, n), 'utf8').split('\n').filter((l) => l.trim()));
}

/** Dispatch records present now that were not among `before` (a hook may drain the spool in between). */
export function newDispatches(env: Env, before: string[]): Extract<SpoolRecord, { type: 'dispatch' }>[] {
  const seen = new Set(before);
  const out: Extract<SpoolRecord, { type: 'dispatch' }>[] = [];
  for (const line of spoolLines(env)) {
    if (seen.has(line)) continue;
    const rec = SpoolRecordSchema.safeParse(JSON.parse(line));
    if (rec.success && rec.data.type === 'dispatch') out.push(rec.data);
  }
  return out;
}
