/**
 * The refresh status file (`paths().refreshStatus`): per source, when it was last tried, whether that worked, how many
 * models it gave, and the last error. Only the lock holder writes it. It doubles as the attempt marker: an attempt is
 * recorded before the fetch starts, so a run that dies half-way still counts and a failing source is not hammered.
 */
import * as z from 'zod/mini';
import { writeFileAtomic } from '../io/files.js';
import { paths, type Env } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';

/** A status file holds a few lines per source. */
const STATUS_MAX_BYTES = 1024 * 1024;

export const SourceStatusSchema = z.object({
  name: z.string(),
  url: z.string(),
  format: z.string(),
  /** ISO time the last attempt started (the attempt marker). */
  lastAttemptAt: z.nullable(z.string()),
  /** Set while an attempt runs; still set afterwards means the attempt was interrupted. */
  pendingSince: z.nullable(z.string()),
  lastSuccessAt: z.nullable(z.string()),
  lastError: z.nullable(z.string()),
  lastErrorKind: z.nullable(z.string()),
  /** Failed (or interrupted) attempts since the last success; drives the back-off. */
  consecutiveFailures: z.int().check(z.nonnegative()),
  /** Of the last successful fetch. */
  models: z.nullable(z.int().check(z.nonnegative())),
  skippedRows: z.nullable(z.int().check(z.nonnegative())),
  bytes: z.nullable(z.int().check(z.nonnegative())),
  durationMs: z.nullable(z.number().check(z.nonnegative())),
  catalogFile: z.nullable(z.string()),
  catalogVersion: z.nullable(z.string()),
});
export type SourceStatus = z.infer<typeof SourceStatusSchema>;

export const RefreshStatusSchema = z.object({
  format: z.literal('tiergate-refresh-status/1'),
  updatedAt: z.string(),
  sources: z.record(z.string(), SourceStatusSchema),
});
export type RefreshStatus = z.infer<typeof RefreshStatusSchema>;

export function emptyStatus(now: Date): RefreshStatus {
  return { format: 'tiergate-refresh-status/1', updatedAt: now.toISOString(), sources: {} };
}

export function blankSourceStatus(source: { name: string; url: string; format: string }): SourceStatus {
  return {
    name: source.name,
    url: source.url,
    format: source.format,
    lastAttemptAt: null,
    pendingSince: null,
    lastSuccessAt: null,
    lastError: null,
    lastErrorKind: null,
    consecutiveFailures: 0,
    models: null,
    skippedRows: null,
    bytes: null,
    durationMs: null,
    catalogFile: null,
    catalogVersion: null,
  };
}

/** Missing or unreadable status reads as empty: the worst case is one extra refresh. */
export function readStatus(env: Env): RefreshStatus | null {
  let text: string;
  try {
    // Inside the data dir: never through a link, never a FIFO's wait (read-capped.ts).
    text = readTextCapped(paths(env).refreshStatus, STATUS_MAX_BYTES, { follow: false });
  } catch {
    return null;
  }
  try {
    const parsed = RefreshStatusSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function writeStatus(env: Env, status: RefreshStatus): void {
  writeFileAtomic(paths(env).refreshStatus, `${JSON.stringify(status, null, 2)}\n`);
}
