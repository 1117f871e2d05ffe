/** Prints install/uninstall outcomes for a person; `--json` prints the same rows as JSON. */
import type { Outcome } from './apply.js';
import { shJoin } from '../../install/shell.js';

const LABEL: Record<Outcome['status'], string> = {
  done: 'done',
  unchanged: 'unchanged',
  planned: 'plan',
  manual: 'run these',
  refused: 'REFUSED',
  failed: 'FAILED',
  skipped: 'skipped',
};

export function formatOutcomes(
  verb: 'install' | 'uninstall',
  rows: Outcome[],
  dryRun: boolean,
  warnings: readonly string[] = [],
): string {
  const lines: string[] = [...warnings, ...(warnings.length ? [''] : [])];
  if (dryRun) lines.push(`tiergate ${verb} --dry-run: nothing was written.`, '');
  for (const r of rows) {
    lines.push(`${r.harness.padEnd(9)} ${LABEL[r.status]}${r.target ? `  (${r.target})` : ''}`);
    for (const a of r.actions) lines.push(`  - ${a}`);
    for (const c of r.commands) lines.push(`  $ ${shJoin(c)}`);
    if (r.commands.length) lines.push(`  (or re-run with --run to let tiergate run them)`);
    for (const p of r.problems) lines.push(`  ! ${p}`);
    for (const n of r.notes) lines.push(`  note: ${n}`);
  }
  return `${lines.join('\n')}\n`;
}
