/** `tiergate demo` output: one line per dispatch decision, then the report table, then where the ledger was. */
import { DESCRIPTORS } from '../descriptors/index.js';
import { HARNESS_IDS } from '../contracts/harness.js';
import { formatTable, type TableTerminal } from '../report/format-table.js';
import { displayWidth } from '../report/terminal-table.js';
import { wrapLines } from '../report/wrap.js';
import type { DemoDecision } from './replay.js';
import type { DemoResult } from './run.js';

/** Where the decision's consequence goes: the corrected model, or the words a denied model reads. */
function consequence(d: DemoDecision): string | null {
  if (d.action === 'correct' && d.newValue) return `now runs as: ${d.newValue}`;
  if (d.action === 'deny' && d.modelSees) return `the model sees: ${d.modelSees}`;
  return null;
}

function who(d: DemoDecision): string {
  return `${DESCRIPTORS[d.harness].name}${d.documentationOnly ? ' (documentation only)' : ''}`;
}

/**
 * What the call asked for; when it named nothing, the model the child would run on anyway and where the decision
 * record read it (its source, else its link: "claude-opus-4-1 (config.yaml delegation.model)"), so a harness without a
 * model argument (Hermes 0.19.0's delegate_task) does not read as "(none)". Inherited from the parent stays "(none)":
 * the parent follows the arrow. The source, not "link: source", keeps Hermes' stacked line within 80 columns.
 */
function asked(d: DemoDecision): string {
  if (d.requested) return d.requested;
  if (!d.withoutFrom || d.withoutFrom === 'parent') return '(none)';
  return `${d.without ?? 'unknown'} (${d.withoutSource ?? d.withoutFrom})`;
}

function verdict(d: DemoDecision): string {
  return `${d.action.toUpperCase()} (${d.reason})`;
}

/** One line per decision, harness names in a column: the layout for a terminal it fits. */
export function decisionLine(d: DemoDecision): string {
  const head = `  ${who(d).padEnd(32)} ${asked(d)} -> parent ${d.parent ?? 'unknown'}: ${verdict(d)}`;
  const then = consequence(d);
  return then ? `${head}\n      ${then}` : head;
}

/** The same decision stacked, for a narrow terminal: who and what on one line, the verdict and its effect under it. */
function decisionStacked(d: DemoDecision): string {
  const then = consequence(d);
  const lines = [`  ${who(d)}: ${asked(d)} -> parent ${d.parent ?? 'unknown'}`, `      ${verdict(d)}`];
  if (then) lines.push(`      ${then}`);
  return lines.join('\n');
}

/** The one-line layout when every decision's first line fits the width, else every decision stacked. */
function decisionLines(decisions: readonly DemoDecision[], width: number): string[] {
  const wide = decisions.map(decisionLine);
  const fits = wide.every((l) => displayWidth(l.split('\n')[0]!) <= width);
  return fits ? wide : decisions.map(decisionStacked);
}

/** "Claude Code, Codex, Cursor, …, GitHub Copilot CLI": every harness, in registry order. */
function harnessNames(): string {
  const names = HARNESS_IDS.map((h) => DESCRIPTORS[h].name);
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * The demo as a terminal of `term.width` columns shows it: the report table laid out for that width (compact columns
 * below 100), the decisions stacked when one line each would not fit, and every other line wrapped at word boundaries.
 */
export function formatDemo(r: DemoResult, keep: boolean, term: TableTerminal = { width: 120, color: false }): string {
  const out = [
    `tiergate demo: recorded subagent dispatches from ${harnessNames()}, replayed through the same hook code, into a temporary ledger (offline; your own config and ledger are not touched).`,
    '',
    'Dispatch decisions (a child may not cost more than its parent):',
    ...decisionLines(r.decisions, term.width),
    '',
    'Per-harness subagent cost and what tiergate saved (tiergate report --by harness on the demo ledger):',
    formatTable(r.report, term).trimEnd(),
    '',
    keep
      ? `Ledger kept at ${r.ledger} (TIERGATE_HOME=${r.home}/tiergate tiergate report to query it).`
      : `Ledger was ${r.ledger}, removed on exit (use --keep to keep it).`,
  ];
  return `${wrapLines(out.join('\n'), term.width)}\n`;
}
