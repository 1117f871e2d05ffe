/**
 * The spend budgets (routing-engine/budget.ts): a budget already exceeded today (the day's, the month's, or that of a
 * session active today) is a warning, since subagents are being moved to the cheap tier or refused; an unreadable
 * spend summary is one too (budgets are not enforced until it is rewritten), and so are children whose spend could not
 * be read (counted as unknown, never $0: the spend is a lower bound). Read-only: the summary and its journal as the last
 * completion, dispatch or observer pass left them; a missing summary is rebuilt by the next completion or CLI run.
 */
import { loadPolicy } from '../config/load.js';
import type { Harness } from '../contracts/harness.js';
import type { Env } from '../io/paths.js';
import { readSpendFile } from '../observer/spend-read.js';
import { periodsAt } from '../observer/spend-summary.js';
import { budgetReport } from '../report/budget-lines.js';
import { showUsd } from '../routing-engine/budget.js';
import { parseDecimal } from '../prices/decimal.js';
import type { Check } from './check.js';
import { checkChildren } from './children.js';

/** `installed`: the harnesses tiergate is installed into (doctor's harness checks); the child lines name only those. */
export function checkBudgets(env: Env, cwd: string, now: number, installed: ReadonlySet<Harness>): Check[] {
  return [...budgetChecks(env, cwd, now), ...checkChildren(env, cwd, installed)];
}

function budgetChecks(env: Env, cwd: string, now: number): Check[] {
  const { policy } = loadPolicy(env, cwd);
  const read = readSpendFile(env);
  const r = budgetReport(policy, read, now);
  if (!r.set) return [{ section: 'budget', name: 'budgets', status: 'info', detail: 'none set (docs/budgets.md)' }];
  if (r.error)
    return [
      {
        section: 'budget',
        name: 'spend summary',
        status: 'warn',
        detail: `${r.error}: budgets are not enforced until the next completion or 'tiergate budget' rewrites it`,
      },
    ];
  const today = periodsAt(now).day.start;
  const checks: Check[] = [];
  for (const row of r.rows) {
    if (row.status === 'not-reported') continue;
    const session = row.scope.startsWith('session ') ? row.scope.slice('session '.length) : null;
    const last = session ? (read.file?.sessions[session]?.last ?? 0) : now;
    if (session && last < today) continue; // a session not active today: no longer anyone's concern
    const spent = `${showUsd(parseDecimal(row.spent) / 1_000_000n)} of $${row.limit}${row.unknown ? ` (+${row.unknown} unpriced)` : ''}`;
    const unknown =
      row.unknown > 0
        ? `; ${row.unknown} ${row.unknown === 1 ? "child's" : "children's"} spend could not be read (no usage in the transcript tail, or no price): counted as unknown, so the spend is a lower bound`
        : '';
    checks.push({
      section: 'budget',
      name: row.kind === 'session' ? 'session budget' : `${row.kind} budget`,
      status: row.status === 'over' || row.unknown > 0 ? 'warn' : 'ok',
      detail:
        row.status === 'over'
          ? `exceeded ${row.scope}: ${spent}; ${row.next} (raise budgets.${row.kind} to go on)${unknown}`
          : `${row.scope}: ${spent}${unknown}`,
      data: {
        kind: row.kind,
        scope: row.scope,
        limit: row.limit,
        spent: row.spent,
        unknown: row.unknown,
        status: row.status,
      },
    });
  }
  return checks.length
    ? checks
    : [{ section: 'budget', name: 'budgets', status: 'ok', detail: 'no spend recorded today' }];
}
