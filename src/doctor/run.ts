/** Runs every doctor check; one failing check never hides the others. */
import type { Harness } from '../contracts/harness.js';
import { HARNESS_IDS } from '../contracts/harness-ids.js';
import type { InstallContext } from '../install/plan.js';
import type { Check } from './check.js';
import { checkBudgets } from './budget.js';
import { checkEnforcement } from './enforcement.js';
import { checkHarnesses, type Presence } from './harnesses.js';
import {
  checkCodeCache,
  checkConfig,
  checkDiagnostics,
  checkEffectiveFile,
  checkLedger,
  checkPrices,
} from './local.js';

/** presence: which harnesses are on this machine (the CLI's detection); without it every absent one is offered an install. */
export function runDoctor(ctx: InstallContext, cwd: string, now: number, presence?: Presence): Check[] {
  const guard = (section: Check['section'], f: () => Check[]): Check[] => {
    try {
      return f();
    } catch (err) {
      return [
        {
          section,
          name: section,
          status: 'error',
          detail: `check failed: ${err instanceof Error ? err.message : String(err)}`,
        },
      ];
    }
  };
  const harnesses = guard('harness', () => checkHarnesses(ctx, presence));
  return [
    ...harnesses,
    ...guard('config', () => checkConfig(ctx.env, cwd)),
    ...guard('prices', () => checkPrices(ctx.env, ctx.pkgRoot, now)),
    ...guard('ledger', () => checkLedger(ctx.env)),
    ...guard('enforcement', () => checkEnforcement(ctx.env, cwd)),
    ...guard('budget', () => checkBudgets(ctx.env, cwd, now, installedIn(harnesses))),
    ...guard('hook', () => checkCodeCache(ctx.env)),
    ...guard('hook', () => checkEffectiveFile(ctx.env)),
    ...guard('diagnostics', () => checkDiagnostics(ctx.env, now)),
  ];
}

/**
 * The harnesses tiergate is installed into, as their own checks said: any row but "not installed" (info) counts, a
 * stale or broken install too (its hooks may still run).
 */
function installedIn(checks: Check[]): ReadonlySet<Harness> {
  const ids = new Set<string>(HARNESS_IDS);
  return new Set(
    checks
      .filter((c) => c.section === 'harness' && ids.has(c.name) && c.status !== 'info')
      .map((c) => c.name as Harness),
  );
}

const MARK: Record<Check['status'], string> = { ok: 'ok  ', info: 'info', warn: 'WARN', error: 'FAIL' };

export function formatDoctor(checks: Check[], version: string, pkgRoot: string): string {
  const lines = [`tiergate ${version} (${pkgRoot})`];
  // The longest name sets the column (a gap of 2+ spaces before the detail lets a wrapped detail hang under itself).
  const nameWidth = Math.max(18, ...checks.map((c) => c.name.length + 1));
  let section = '';
  for (const c of checks) {
    if (c.section !== section) lines.push('', `${c.section}:`);
    section = c.section;
    lines.push(`  ${MARK[c.status]} ${c.name.padEnd(nameWidth)} ${c.detail}`);
  }
  const errors = checks.filter((c) => c.status === 'error').length;
  lines.push('', errors ? `${errors} problem(s) found.` : 'no problems found.');
  return `${lines.join('\n')}\n`;
}
