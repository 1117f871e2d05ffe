/**
 * The spool: dispatch paths append one JSON line here instead of opening SQLite (no native module load, no lock wait
 * on the hot path). Processes append to one shared file, each line in one O_APPEND write, so concurrent hooks never
 * interleave partial lines; the ledger drains and deletes claimed files (collect/drain.ts). A command hook is a process
 * per dispatch: a file of its own was a new inode each time, which ext4 without a journal finds by scanning past every
 * inode freed in the last five minutes (0.01 to 1 ms on this project's CI machines: bench/README.md, "Session 18").
 */
import type { SpoolRecord } from '../contracts/spool.js';
import { appendBoundedClaimable, ensurePrivateDir } from '../io/files.js';
import { paths, type Env, joinPath } from '../io/paths.js';

/** Per-file cap: a spool file this large is set aside under a name of its own, and the drain reads each one. */
export const SPOOL_FILE_MAX_BYTES = 8 * 1024 * 1024;

/** The file every process appends to until a drain claims it (then again, under the same name). */
export const SHARED_SPOOL_FILE = 'hooks.jsonl';

/** A file of one process's own (resetSpoolFile). */
export function spoolFileFor(env: Env, pid = process.pid): string {
  return joinPath(paths(env).spoolDir, `${pid}-${Date.now().toString(36)}.jsonl`);
}

/** This process's own file (resetSpoolFile), once named. */
let ownFile: string | null = null;
let useOwnFile = false;

/**
 * The record is typed by SpoolRecordSchema; the drain validates every line against it (a bad one is skipped and
 * logged there), so the dispatch path does not build and run the whole schema a second time (bench/README.md).
 * Records from outside the type system (the Claude module's hand-off) are parsed by their reader before they get here.
 */
export function appendSpool(record: SpoolRecord, env: Env = process.env): void {
  const dir = paths(env).spoolDir;
  // Never through a link in the spool directory's place (RefusedFile, diagnosed by the caller): once per process.
  ensurePrivateDir(dir);
  const file = useOwnFile ? (ownFile ??= spoolFileFor(env)) : joinPath(dir, SHARED_SPOOL_FILE);
  appendBoundedClaimable(file, `${JSON.stringify(record)}\n`, SPOOL_FILE_MAX_BYTES);
}

/**
 * Later records go to a fresh file of this process's own, as another process's would: what tests use to have records
 * in several files.
 */
export function resetSpoolFile(): void {
  ownFile = null;
  useOwnFile = true;
}
