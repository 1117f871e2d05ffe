/** `tiergate demo`: replay every harness's recorded payloads through the real hooks into a temp ledger; print the result. */
import { formatDemo } from '../../demo/format.js';
import { runDemo } from '../../demo/run.js';
import { formatJson } from '../../report/format-json.js';
import { localZone } from '../../report/zone.js';
import { parseCommandFlags } from '../args.js';
import { terminal, wrapped } from '../terminal.js';

export const USAGE = `Usage: tiergate demo [--json] [--keep]
  Shows what tiergate does without installing anything: recorded subagent dispatches from every supported harness
  go through the same hook code a real install runs, into a temporary ledger, offline (no model is called; your own
  config and ledger are not touched). Prints each dispatch decision (allowed, corrected to a cheaper model, or
  denied) and the report \`tiergate report --by harness\` would show, in your time zone.
  --json    the decisions and the report as JSON
  --keep    keep the temporary ledger and say where it is, to try \`tiergate report\` on it`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('demo', USAGE, argv, {
    json: { type: 'boolean' },
    keep: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  if (values.help) return (process.stdout.write(wrapped(`${USAGE}\n`)), 0);
  const result = await runDemo({ keep: values.keep === true, timeZone: localZone() });
  if (values.json) {
    const doc = {
      decisions: result.decisions,
      report: JSON.parse(formatJson(result.report)) as unknown,
      ledger: values.keep ? result.ledger : null,
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else process.stdout.write(formatDemo(result, values.keep === true, terminal()));
  return 0;
}
