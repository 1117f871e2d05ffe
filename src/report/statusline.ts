/**
 * `tiergate statusline`: one short line for the harness's status bar about the current session: its subagent spend,
 * the budget left, and the dispatches tiergate corrected. Claude Code runs the command after every assistant message
 * (at most every 300 ms, docs "statusline"), so it reads what the dispatch path reads and nothing more: the spend
 * summary (observer/spend-read.ts), the policy line of the effective file, and the spool lines not drained yet. No
 * SQLite, no zod, no write: every read is capped, a missing or damaged file drops its part of the line.
 */
import { readdirSync } from 'node:fs';
import type { Policy } from '../contracts/config.js';
import { isRecord } from '../contracts/record.js';
import type { Harness } from '../contracts/harness.js';
import { effectivePath, EFFECTIVE_FORMAT } from '../config/effective-file.js';
import { paths, type Env } from '../io/paths.js';
import { readTextHead } from '../io/read-capped.js';
import { readSpendFile } from '../observer/spend-read.js';
import { sessionKey, spendStateFrom } from '../observer/spend-summary.js';
import { budgetLines, showUsd } from '../routing-engine/budget.js';
import { parseDecimal } from '../prices/decimal.js';

/** What the harness told the command about its session (Claude Code: session_id, cost.total_cost_usd on stdin). */
export type StatusInput = { harness: Harness; sessionId: string | null; sessionTotalUsd: string | null };

/** The policy line of the effective file: far below this; a larger head is not read further. */
const POLICY_HEAD_BYTES = 256 * 1024;
/** Spool files looked into (one per hook process; in-process plugins keep one) and the bytes read of each. */
export const MAX_SPOOL_FILES = 256;
const SPOOL_FILE_HEAD_BYTES = 1024 * 1024;

const LABEL = { session: 'session', sessionTotal: 'session total', day: 'daily', month: 'monthly' } as const;

/** The user's budgets as the last hook or command compiled them; null when there is no effective file to read. */
function readBudgets(env: Env): Policy['budgets'] | null {
  try {
    const head = readTextHead(effectivePath(env), POLICY_HEAD_BYTES, { follow: false });
    const nl = head.indexOf('\n');
    if (nl < 0) return null;
    const h: unknown = JSON.parse(head.slice(0, nl));
    if (!isRecord(h) || h.format !== EFFECTIVE_FORMAT || !isRecord(h.policy) || !isRecord(h.policy.budgets))
      return null;
    return h.policy.budgets as Policy['budgets'];
  } catch {
    return null;
  }
}

/**
 * Dispatches of this session tiergate corrected that the ledger has not drained yet: Claude Code's command hooks drain
 * only at session end, so during a session they are all here. Claimed files (`.draining-`) are being moved into the
 * ledger; the summary counts them once the drain has rebuilt it.
 */
export function pendingCorrections(env: Env, harness: Harness, sessionId: string): number {
  const dir = paths(env).spoolDir;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return 0;
  }
  const id = JSON.stringify(sessionId);
  let n = 0;
  for (const name of names.slice(0, MAX_SPOOL_FILES)) {
    let text: string;
    try {
      text = readTextHead(`${dir}/${name}`, SPOOL_FILE_HEAD_BYTES, { follow: false });
    } catch {
      continue;
    }
    if (!text.includes(id) || !text.includes('"correct"')) continue;
    for (const line of text.split('\n')) {
      if (!line.includes(id) || !line.includes('"correct"')) continue;
      try {
        const r = JSON.parse(line) as {
          type?: unknown;
          observation?: { harness?: unknown; sessionId?: unknown };
          decision?: { action?: unknown };
        };
        if (
          r.type === 'dispatch' &&
          r.decision?.action === 'correct' &&
          r.observation?.harness === harness &&
          r.observation.sessionId === sessionId
        )
          n++;
      } catch {
        /* a torn last line: counted once the writer finishes it */
      }
    }
  }
  return n;
}

/** The line, without a newline. Never throws: what cannot be read is left out. */
export function statusLine(env: Env, input: StatusInput, now = Date.now()): string {
  const parts: string[] = [];
  const read = readSpendFile(env, now);
  const key = input.sessionId ? sessionKey(input.harness, input.sessionId) : null;
  const own = key && read.file ? read.file.sessions[key] : undefined;
  if (read.error !== null) parts.push('subagent spend unknown');
  else if (input.sessionId) {
    const unpriced = own?.unknown ? ` (+${own.unknown} unpriced)` : '';
    const pico = own ? BigInt(own.pico) : 0n;
    parts.push(`subagents ${pico === 0n ? '$0' : showUsd(pico)}${unpriced}`);
  }
  // With the summary unreadable, the corrections it holds are too: a count of the spool's alone would read as all.
  if (input.sessionId && read.error === null) {
    const corrected = (own?.corrected ?? 0) + pendingCorrections(env, input.harness, input.sessionId);
    parts.push(`${corrected} corrected`);
  }
  const budgets = read.error === null ? readBudgets(env) : null;
  if (budgets) {
    const state = spendStateFrom(read, input.harness, input.sessionId, now, input.sessionTotalUsd);
    // The tightest budget: the one with the least left.
    const left = budgetLines(budgets, state)
      .filter((l) => l.status !== 'not-reported')
      .map((l) => ({ l, left: parseDecimal(l.limit) - parseDecimal(l.spent) }))
      .sort((a, b) => (a.left < b.left ? -1 : a.left > b.left ? 1 : 0))[0];
    if (left) {
      const label = LABEL[left.l.kind];
      parts.push(
        left.left <= 0n
          ? `${label} budget of $${left.l.limit} spent`
          : `${showUsd(left.left / 1_000_000n)} of $${left.l.limit} ${label} budget left`,
      );
    }
  }
  return parts.length ? `tiergate: ${parts.join(' · ')}` : 'tiergate';
}
