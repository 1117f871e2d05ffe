/** `tiergate demo`: replay every harness's recorded payloads through the real hooks into a temp ledger; print the result. */
import { formatDemo } from '../../demo/format.js';
import { runDemo } from '../../demo/run.js';
import { formatJson } from '../../report/format-json.js';
import { parseCommandFlags } from '../args.js';

export const USAGE = 'Usage: tiergate demo [--json] [--keep]';

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('demo', USAGE, argv, {
    json: { type: 'boolean' },
    keep: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  if (values.help) return (process.stdout.write(`${USAGE}\n`), 0);
  const result = await runDemo({ keep: values.keep === true });
  if (values.json) {
    const doc = {
      decisions: result.decisions,
      report: JSON.parse(formatJson(result.report)) as unknown,
      ledger: values.keep ? result.ledger : null,
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else process.stdout.write(formatDemo(result, values.keep === true));
  return 0;
}
