/** `tiergate doctor [--json]`: what is installed where, config, prices, ledger, diagnostics; exit 1 on any problem. */
import { makeContext } from '../../install/context.js';
import { formatDoctor, runDoctor } from '../../doctor/run.js';

export async function run(argv: string[]): Promise<number> {
  const ctx = makeContext(process.env);
  const checks = runDoctor(ctx, process.cwd(), Date.now());
  const ok = !checks.some((c) => c.status === 'error');
  process.stdout.write(argv.includes('--json') ? `${JSON.stringify({ ok, version: ctx.version, packageRoot: ctx.pkgRoot, checks }, null, 2)}\n` : formatDoctor(checks, ctx.version, ctx.pkgRoot));
  return ok ? 0 : 1;
}
