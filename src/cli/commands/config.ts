/**
 * `tiergate config check [--json]`: which policy files apply, what the project file changed (applied or ignored), the
 * merged policy, and every problem found. Rewrites the effective file the dispatch hooks read.
 */
import { wrapped } from '../terminal.js';
import { loadPolicy } from '../../config/load.js';
import { writeEffective } from '../../config/policy-load.js';
import { paths } from '../../io/paths.js';
import { withoutSecrets } from '../../contracts/secrets.js';
import { budgetPolicyLine } from '../../report/budget-lines.js';
import { loadCatalogLayers } from '../../prices/load.js';
import { createPriceLookup } from '../../prices/lookup.js';
import { listPrices } from '../../prices/query.js';
import { parseCommandFlags, usageError } from '../args.js';
import { projectPolicyLines } from '../project-policy.js';
import { unknownValue } from '../suggest.js';
import { checkTierValues } from '../tier-values.js';

export const USAGE = `Usage: tiergate config check [--json]
  Which policy files apply, what a project's .tiergate.json changed, the merged policy and every problem found;
  exits 1 when there is a problem.`;

export async function run(argv: string[]): Promise<number> {
  const [sub = 'check', ...rest] = argv;
  if (sub !== 'check') return usageError('config', unknownValue('subcommand', sub, ['check']));
  const parsed = parseCommandFlags('config check', USAGE, rest, { json: { type: 'boolean' } });
  if (!parsed) return 2;
  const loaded = loadPolicy(process.env, process.cwd());
  // What the dispatch hooks read (config/effective-file.ts), rewritten from the files just checked.
  writeEffective(process.env);
  const layers = loadCatalogLayers(process.env, loaded.policy);
  const prices = createPriceLookup(layers, loaded.policy);
  const tierProblems = checkTierValues(
    loaded.policy,
    prices,
    listPrices(layers, {}).map((r) => r.key),
  );
  const errors = [...loaded.diagnostics, ...tierProblems.filter((t) => t.level === 'error').map((t) => t.message)];
  const warnings = tierProblems.filter((t) => t.level === 'warning').map((t) => t.message);
  const ok = errors.length === 0;
  if (parsed.values.json) {
    process.stdout.write(
      `${JSON.stringify(withoutSecrets({ ok, files: loaded.files, project: loaded.project, diagnostics: loaded.diagnostics, tierProblems, policy: loaded.policy }), null, 2)}\n`,
    );
  } else {
    const write = (text: string) => process.stdout.write(wrapped(text));
    write(
      loaded.files.length
        ? `policy files:\n${loaded.files.map((f) => `  ${f}`).join('\n')}\n`
        : 'policy files: none (built-in defaults)\n',
    );
    write(`${projectPolicyLines(loaded.project, paths(process.env).config).join('\n')}\n`);
    write(
      ok
        ? 'ok: no problems found\n'
        : `problems (each section named keeps its previous value; a tier value as written is used):\n${errors.map((d) => `  - ${d}`).join('\n')}\n`,
    );
    if (warnings.length) write(`warnings:\n${warnings.map((w) => `  - ${w}`).join('\n')}\n`);
    write(
      `mode ${loaded.policy.mode}, unknown prices ${loaded.policy.unknownPrice}, default tier ${loaded.policy.defaultTier}\n`,
    );
    write(`${budgetPolicyLine(loaded.policy)}\n`);
  }
  return ok ? 0 : 1;
}
