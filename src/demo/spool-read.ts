/** Reads the demo sandbox's spool (read-only) so each replayed dispatch can be shown with the decision it recorded. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { paths, type Env } from '../io/paths.js';
import { SpoolRecordSchema, type SpoolRecord } from '../contracts/spool.js';
import { readJsonLines } from '../observer/json-lines.js';

type Line = { text: string; value: unknown };

function spoolRecords(env: Env): Line[] {
  const dir = paths(env).spoolDir;
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => /\.jsonl(\.1)?$/.test(n))
      .sort();
  } catch {
    return [];
  }
  const out: Line[] = [];
  for (const n of names) {
    try {
      readJsonLines(join(dir, n), { noFollow: true }, (value, text) => void (text.trim() && out.push({ text, value })));
    } catch {
      /* claimed by a drain in between: its records are in the ledger now */
    }
  }
  return out;
}

export function spoolLines(env: Env): string[] {
  return spoolRecords(env).map((l) => l.text);
}

/** Dispatch records present now that were not among `before` (a hook may drain the spool in between). */
export function newDispatches(env: Env, before: string[]): Extract<SpoolRecord, { type: 'dispatch' }>[] {
  const seen = new Set(before);
  const out: Extract<SpoolRecord, { type: 'dispatch' }>[] = [];
  for (const { text, value } of spoolRecords(env)) {
    if (seen.has(text)) continue;
    const rec = SpoolRecordSchema.safeParse(value);
    if (rec.success && rec.data.type === 'dispatch') out.push(rec.data);
  }
  return out;
}
