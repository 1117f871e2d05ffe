/** `tiergate doctor [--json]`: what is installed where, config, prices, ledger, diagnostics; exit 1 on any problem. */
import { wrapped } from '../terminal.js';
import { makeContext } from '../../install/context.js';
import { formatDoctor, runDoctor } from '../../doctor/run.js';
import { parseCommandFlags } from '../args.js';
import { detectHarness } from '../install/detect.js';

export const USAGE = `Usage: tiergate doctor [--json]
  Checks what is installed where, the policy, prices, ledger, hook code cache and diagnostics; exits 1 on any error.`;

export async function run(argv: string[]): Promise<number> {
  // An unknown flag is a usage error (exit 2), not silently a table: `--jsn` must not look like a pass to a script.
  const parsed = parseCommandFlags('doctor', USAGE, argv, {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (!parsed) return 2;
  if (parsed.values.help) return (process.stdout.write(wrapped(`${USAGE}\n`)), 0);
  const ctx = makeContext(process.env);
  const checks = runDoctor(ctx, process.cwd(), Date.now(), (h) => detectHarness(ctx, h));
  const ok = !checks.some((c) => c.status === 'error');
  process.stdout.write(
    parsed.values.json
      ? `${JSON.stringify({ ok, version: ctx.version, packageRoot: ctx.pkgRoot, checks }, null, 2)}\n`
      : wrapped(formatDoctor(checks, ctx.version, ctx.pkgRoot)),
  );
  return ok ? 0 : 1;
}
