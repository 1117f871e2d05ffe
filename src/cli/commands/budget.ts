/**
 * `tiergate budget [--json] [--no-drain]`: each spend budget, the spend against it and what the next dispatch meets.
 * The ledger is drained and the spend summary rebuilt from it first (as `report` drains), so the figures are the ones
 * the next dispatch will read.
 */
import { loadPolicy } from '../../config/load.js';
import { paths } from '../../io/paths.js';
import { loadPricer } from '../../observer/default-pricer.js';
import { runObserver } from '../../collect/drain.js';
import { openLedger } from '../../observer/ledger/open.js';
import { readSpendFile } from '../../observer/spend-read.js';
import { budgetReport, budgetTextLines, pastBudgetText } from '../../report/budget-lines.js';
import { refusalCounts, refusalTextLines, type RefusalCounts } from '../../report/refusals.js';
import { hasLimits } from '../../routing-engine/limits.js';
import { parseCommandFlags } from '../args.js';

export const USAGE = `Usage: tiergate budget [--json] [--no-drain]
  Each spend budget (budgets in the policy), the subagent spend against it (today and this month in your time zone,
  and your most recent sessions) and what the next dispatch meets: proceeds, warned, moved to the cheap tier or refused.
  Below them, running children stopped by a budget (budgets.action "stop"), dispatches refused by a fan-out limit
  (limits) and asks raised at the permission prompt (an "ask" policy; with those approved and run), today and this month.
  --no-drain   do not move the spool into the ledger first (the figures are then as the last pass left them)`;

/** The local zone the day and month are cut in (Date's local time; TZ honoured). Intl only here, never at dispatch. */
const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'local time';

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('budget', USAGE, argv, {
    json: { type: 'boolean' },
    'no-drain': { type: 'boolean' },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  const env = process.env;
  const { policy } = loadPolicy(env, process.cwd());
  const now = Date.now();
  let counts: RefusalCounts | null = null;
  const db = openLedger(env);
  try {
    if (!values['no-drain']) runObserver(env, loadPricer(env), db);
    counts = refusalCounts(db, now);
  } finally {
    db.close();
  }
  const r = budgetReport(policy, readSpendFile(env), now);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ zone: localZone(), ...r, limits: policy.limits, ...counts }, null, 2)}\n`);
    return 0;
  }
  const refusals = refusalTextLines(policy, counts);
  if (!r.set) {
    process.stdout.write(
      `no budget set. Add one to ${paths(env).config}, e.g. { "budgets": { "day": "40", "action": "downshift" } } (docs/budgets.md)\n` +
        (refusals.length
          ? `${hasLimits(policy.limits) ? 'fan-out limits:' : 'refusals:'}\n${refusals.join('\n')}\n`
          : ''),
    );
    return 0;
  }
  const head = `budgets (USD of subagent spend; days and months in ${localZone()}); past a budget: ${pastBudgetText(r.action)}; warn at ${Math.round(r.warnAt * 100)}%`;
  process.stdout.write(`${[head, ...budgetTextLines(r), ...refusals].join('\n')}\n`);
  return 0;
}
