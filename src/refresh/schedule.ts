/** When a source is due for another fetch. Pure: the caller passes the clock and whether the catalog file exists. */
import type { SourceStatus } from './status.js';

const HOUR_MS = 3_600_000;

/**
 * After a success, wait the TTL. After a failure (or an attempt that never finished), back off: 1 h, 2 h, 4 h, …
 * capped at the TTL, so a source that is down is tried a few times a day, not at every session start.
 */
export function retryAfterMs(status: SourceStatus, ttlMs: number): number {
  if (status.consecutiveFailures === 0) return ttlMs;
  const backoff = HOUR_MS * 2 ** Math.min(status.consecutiveFailures - 1, 16);
  return Math.min(ttlMs, backoff);
}

export function isDue(status: SourceStatus | undefined, nowMs: number, ttlMs: number, catalogExists: boolean): boolean {
  if (!status || !status.lastAttemptAt) return true;
  const last = Date.parse(status.lastAttemptAt);
  if (!Number.isFinite(last) || last > nowMs) return true; // unreadable or from the future (clock moved back)
  // A success whose catalog was deleted since: fetch again rather than trust the marker.
  if (status.consecutiveFailures === 0 && !catalogExists) return true;
  return nowMs - last >= retryAfterMs(status, ttlMs);
}

/** When the source will next be due (for `prices status`), or null when it is due now. */
export function nextDueAt(
  status: SourceStatus | undefined,
  nowMs: number,
  ttlMs: number,
  catalogExists: boolean,
): number | null {
  if (isDue(status, nowMs, ttlMs, catalogExists) || !status?.lastAttemptAt) return null;
  return Date.parse(status.lastAttemptAt) + retryAfterMs(status, ttlMs);
}
