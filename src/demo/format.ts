/** `tiergate demo` output: one line per dispatch decision, then the report table, then where the ledger was. */
import { DESCRIPTORS } from '../descriptors/index.js';
import { HARNESS_IDS } from '../contracts/harness.js';
import { formatTable } from '../report/format-table.js';
import type { DemoDecision } from './replay.js';
import type { DemoResult } from './run.js';

export function decisionLine(d: DemoDecision): string {
  const who = `${DESCRIPTORS[d.harness].name}${d.documentationOnly ? ' (documentation only)' : ''}`;
  const head = `  ${who.padEnd(32)} ${d.requested ?? '(none)'} -> parent ${d.parent ?? 'unknown'}: ${d.action.toUpperCase()} (${d.reason})`;
  if (d.action === 'correct' && d.newValue) return `${head}\n      now runs as: ${d.newValue}`;
  if (d.action === 'deny' && d.modelSees) return `${head}\n      the model sees: ${d.modelSees}`;
  return head;
}

/** "Claude Code, Codex, Cursor, …, GitHub Copilot CLI": every harness, in registry order. */
function harnessNames(): string {
  const names = HARNESS_IDS.map((h) => DESCRIPTORS[h].name);
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export function formatDemo(r: DemoResult, keep: boolean): string {
  const out = [
    `tiergate demo: recorded subagent dispatches from ${harnessNames()}, replayed through`,
    'the same hook code, into a temporary ledger (offline; your own config and ledger are not touched).',
    '',
    'Dispatch decisions (a child may not cost more than its parent):',
    ...r.decisions.map(decisionLine),
    '',
    'Per-harness subagent cost and what tiergate saved (tiergate report --by harness on the demo ledger):',
    formatTable(r.report).trimEnd(),
    '',
    keep
      ? `Ledger kept at ${r.ledger} (TIERGATE_HOME=${r.home}/tiergate tiergate report to query it).`
      : `Ledger was ${r.ledger}, removed on exit (use --keep to keep it).`,
  ];
  return `${out.join('\n')}\n`;
}
