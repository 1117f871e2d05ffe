/** The spool lines a test's hooks wrote under its data dir, parsed with the spool schema (unit tests). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SpoolRecordSchema, type SpoolRecord } from '../../src/contracts/spool.js';
import { paths, type Env } from '../../src/io/paths.js';

export function spooledRecords(env: Env): SpoolRecord[] {
  const dir = paths(env).spoolDir;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
  return names.flatMap((n) =>
    readFileSync(join(dir, n), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => SpoolRecordSchema.parse(JSON.parse(l))),
  );
}
