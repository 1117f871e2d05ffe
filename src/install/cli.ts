/** Shared argument handling of `tiergate install` and `tiergate uninstall`. */
import { HarnessSchema, type Harness } from '../contracts/harness.js';
import { install, uninstall } from './apply.js';
import { makeContext } from './context.js';
import { formatOutcomes } from './format.js';
import { usageError } from '../cli/args.js';
import { unknownValue } from '../cli/suggest.js';

export const USAGE = (verb: string) =>
  `Usage: tiergate ${verb} <claude|codex|cursor|opencode|pi ...> | --all [--dry-run] [--run] [--json]\n` +
  `  --dry-run  show the plan, write nothing\n` +
  `  --run      also run the harness's own plugin commands (Claude Code, Codex) instead of printing them\n` +
  `  --json     machine-readable output\n`;

export async function runInstallCli(verb: 'install' | 'uninstall', argv: string[]): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const names = argv.filter((a) => !a.startsWith('--'));
  const known = new Set(['--all', '--dry-run', '--run', '--json', '--help']);
  const unknown = [...flags].filter((f) => !known.has(f));
  if (flags.has('--help')) {
    process.stdout.write(USAGE(verb));
    return 0;
  }
  const bad = names.filter((n) => !HarnessSchema.safeParse(n).success);
  if (unknown.length) return usageError(verb, unknownValue('option', unknown[0]!, [...known]));
  if (bad.length) return usageError(verb, unknownValue('harness', bad[0]!, HarnessSchema.options));
  if (!names.length && !flags.has('--all')) return usageError(verb, `name a harness (${HarnessSchema.options.join(', ')}) or --all`);
  const harnesses: Harness[] = flags.has('--all') ? [...HarnessSchema.options] : [...new Set(names as Harness[])];
  const opts = { dryRun: flags.has('--dry-run'), run: flags.has('--run') };
  const ctx = makeContext(process.env);
  const rows = verb === 'install' ? install(ctx, harnesses, opts) : uninstall(ctx, harnesses, opts);
  process.stdout.write(flags.has('--json') ? `${JSON.stringify({ command: verb, dryRun: opts.dryRun, version: ctx.version, packageRoot: ctx.pkgRoot, harnesses: rows }, null, 2)}\n` : formatOutcomes(verb, rows, opts.dryRun));
  return rows.some((r) => r.status === 'refused' || r.status === 'failed') ? 1 : 0;
}
