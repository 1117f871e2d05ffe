/**
 * The spool: dispatch paths append one JSON line here instead of opening SQLite (no native module load, no lock wait
 * on the hot path). Each process appends to its own file, so concurrent hooks never interleave partial lines; the
 * ledger drains and deletes claimed files.
 */
import type { SpoolRecord } from '../contracts/spool.js';
import { appendBoundedClaimable, ensurePrivateDir } from '../io/files.js';
import { paths, type Env, joinPath } from '../io/paths.js';

/** Per-file cap; a runaway writer rotates rather than fills the disk (drain reads both generations). */
export const SPOOL_FILE_MAX_BYTES = 8 * 1024 * 1024;

export function spoolFileFor(env: Env, pid = process.pid): string {
  return joinPath(paths(env).spoolDir, `${pid}-${Date.now().toString(36)}.jsonl`);
}

let currentFile: string | null = null;

/**
 * The record is typed by SpoolRecordSchema; the drain validates every line against it (a bad one is skipped and
 * logged there), so the dispatch path does not build and run the whole schema a second time (bench/README.md).
 * Records from outside the type system (the Claude module's hand-off) are parsed by their reader before they get here.
 */
export function appendSpool(record: SpoolRecord, env: Env = process.env): void {
  if (currentFile === null) {
    // Never through a link in the spool directory's place (RefusedFile, diagnosed by the caller): once per process.
    ensurePrivateDir(paths(env).spoolDir);
    currentFile = spoolFileFor(env);
  }
  appendBoundedClaimable(currentFile, `${JSON.stringify(record)}\n`, SPOOL_FILE_MAX_BYTES);
}

/** Tests and long-lived in-process plugins start a fresh file (e.g. after a drain claimed the old one). */
export function resetSpoolFile(): void {
  currentFile = null;
}
