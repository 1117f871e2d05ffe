/** What tiergate added where, kept in the data dir so `uninstall` removes exactly that and nothing else. */
import { join } from 'node:path';
import * as z from 'zod/mini';
import { HarnessSchema, type Harness } from '../contracts/harness.js';
import { writeFileAtomic } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';
import { readText } from './backup.js';

const JsonPathSchema = z.array(z.union([z.string(), z.number()]));
const UndoSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('remove-from-array'), path: JsonPathSchema, value: z.unknown(), dropIfEmpty: z.boolean() }),
  // onlyIfEqual: removed only while it holds this value (the statusLine `install claude --statusline` set).
  z.object({
    op: z.literal('remove-key'),
    path: JsonPathSchema,
    onlyIfEmpty: z.boolean(),
    onlyIfEqual: z.optional(z.unknown()),
  }),
]);

export const FileRecordSchema = z.object({
  file: z.string(),
  existedBefore: z.boolean(),
  beforeSha: z.nullable(z.string()),
  afterSha: z.string(),
  backup: z.nullable(z.string()),
  undo: z.array(UndoSchema),
  emptyTextWhenAbsent: z.nullable(z.string()),
});
export type FileRecord = z.infer<typeof FileRecordSchema>;

/** A file a harness's own command edits (Claude settings.json, Codex config.toml). */
export const TouchRecordSchema = z.object({
  file: z.string(),
  format: z.enum(['json', 'toml']),
  existedBefore: z.boolean(),
  beforeSha: z.nullable(z.string()),
  backup: z.nullable(z.string()),
});
export type TouchRecord = z.infer<typeof TouchRecordSchema>;

export const HarnessRecordSchema = z.object({
  installedAt: z.string(),
  version: z.string(),
  pkgRoot: z.string(),
  files: z.array(FileRecordSchema),
  touched: z.array(TouchRecordSchema),
  commands: z.array(z.array(z.string())),
  /** Folders install created for its files (deepest last); uninstall removes each one that is empty again. */
  dirs: z.optional(z.array(z.string())),
});
export type HarnessRecord = z.infer<typeof HarnessRecordSchema>;

export const InstallRecordSchema = z.object({
  format: z.literal('tiergate-install/1'),
  harnesses: z.partialRecord(HarnessSchema, HarnessRecordSchema),
});
export type InstallRecord = z.infer<typeof InstallRecordSchema>;

export function recordPath(env: Env): string {
  return join(paths(env).data, 'install-record.json');
}

/** An unreadable record counts as none: uninstall then falls back to removing tiergate's own entries. */
export function readRecord(env: Env): InstallRecord {
  const text = readText(recordPath(env));
  if (text !== null) {
    try {
      const r = InstallRecordSchema.safeParse(JSON.parse(text));
      if (r.success) return r.data;
    } catch {
      /* fall through */
    }
  }
  return { format: 'tiergate-install/1', harnesses: {} };
}

export function writeRecord(env: Env, rec: InstallRecord): void {
  writeFileAtomic(recordPath(env), `${JSON.stringify(rec, null, 2)}\n`);
}
