/** The dispatch path's read of the spend summary (spend-summary.ts), in Node. */
import type { Harness } from '../contracts/harness.js';
import type { Env } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';
import type { SpendState } from '../routing-engine/budget.js';
import { parseSpend, SPEND_MAX_BYTES, spendPath, spendStateFrom, type ReadSpend } from './spend-summary.js';

/**
 * One bounded read, never through a link or a FIFO in the data dir. Absent: nothing recorded yet (a true $0). Any
 * other failure is an error for the caller to diagnose: budgets fail open, never silently.
 */
export function readSpendFile(env: Env): ReadSpend {
  let text: string;
  try {
    text = readTextCapped(spendPath(env), SPEND_MAX_BYTES, { follow: false });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { file: null, error: null };
    return { file: null, error: `spend summary unreadable: ${(err as Error).message}` };
  }
  const parsed = parseSpend(text);
  return typeof parsed === 'string' ? { file: null, error: parsed } : { file: parsed, error: null };
}

export function readSpend(
  env: Env,
  harness: Harness,
  sessionId: string | null,
  now: number,
  sessionTotal: string | null = null,
): SpendState {
  return spendStateFrom(readSpendFile(env), harness, sessionId, now, sessionTotal);
}
