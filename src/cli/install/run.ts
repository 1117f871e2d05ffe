/** Shared argument handling of `tiergate install` and `tiergate uninstall`. */
import { wrapped } from '../terminal.js';
import { HARNESS_IDS, HarnessSchema, type Harness } from '../../contracts/harness.js';
import { install, uninstall, type Outcome } from './apply.js';
import { makeContext } from '../../install/context.js';
import { detectHarness } from './detect.js';
import { formatOutcomes } from './format.js';
import { transientWarning } from '../../install/transient.js';
import { usageError } from '../args.js';
import { unknownValue } from '../suggest.js';

export const USAGE = (verb: string) =>
  `Usage: tiergate ${verb} <${HARNESS_IDS.join('|')} ...> | --all [--dry-run] [--run] [--force] [--json]\n` +
  (verb === 'install'
    ? `  --all      every harness found on this machine (its command on PATH or its config folder); the others are\n` +
      `             skipped, saying why. Name harnesses to install into them whether found or not.\n`
    : `  --all      every harness\n`) +
  `  --dry-run  show the plan, write nothing\n` +
  `  --run      also run the harness's own plugin or extension commands (Claude Code, Codex, Gemini CLI, GitHub\n` +
  `             Copilot CLI) instead of printing them\n` +
  `  --force    also write a settings file the user made read-only (its mode is kept); without it such a file\n` +
  `             refuses that harness, nothing of it written\n` +
  `  --json     machine-readable output\n` +
  (verb === 'install'
    ? `  --statusline  Claude Code: also show \`tiergate statusline\` (session spend, corrections, budget left) in its\n` +
      `             status bar, only if settings.json has no statusLine yet (yours is never replaced)\n`
    : '');

export async function runInstallCli(verb: 'install' | 'uninstall', argv: string[]): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const names = argv.filter((a) => !a.startsWith('--'));
  const known = new Set([
    '--all',
    '--dry-run',
    '--run',
    '--force',
    '--json',
    '--help',
    ...(verb === 'install' ? ['--statusline'] : []),
  ]);
  const unknown = [...flags].filter((f) => !known.has(f));
  if (flags.has('--help')) {
    process.stdout.write(wrapped(USAGE(verb)));
    return 0;
  }
  const bad = names.filter((n) => !HarnessSchema.safeParse(n).success);
  if (unknown.length) return usageError(verb, unknownValue('option', unknown[0]!, [...known]));
  if (bad.length) return usageError(verb, unknownValue('harness', bad[0]!, HarnessSchema.options));
  if (!names.length && !flags.has('--all'))
    return usageError(verb, `name a harness (${HarnessSchema.options.join(', ')}) or --all`);
  const ctx = { ...makeContext(process.env), statusline: flags.has('--statusline') };
  const json = flags.has('--json');
  // --all installs where a harness is found; named harnesses are installed whether found or not (also with --all).
  const skipped: Outcome[] = [];
  const named = new Set(names as Harness[]);
  let harnesses: Harness[] = flags.has('--all') ? [...HarnessSchema.options] : [...named];
  if (verb === 'install' && flags.has('--all')) {
    harnesses = harnesses.filter((h) => {
      const d = detectHarness(ctx, h);
      if (d.found || named.has(h)) return true;
      skipped.push({
        harness: h,
        target: '',
        status: 'skipped',
        actions: [],
        commands: [],
        problems: [],
        notes: [`${d.why}; to install anyway: tiergate install ${h}`],
      });
      return false;
    });
  }
  const opts = {
    dryRun: flags.has('--dry-run'),
    run: flags.has('--run'),
    force: flags.has('--force'),
    progress: json ? undefined : (line: string) => void process.stderr.write(`tiergate ${verb}: ${line}\n`),
  };
  const warnings =
    verb === 'install' ? [transientWarning(ctx.pkgRoot, ctx.env)].filter((w): w is string => w !== null) : [];
  const done = verb === 'install' ? install(ctx, harnesses, opts) : uninstall(ctx, harnesses, opts);
  const rows = [...done, ...skipped];
  process.stdout.write(
    json
      ? `${JSON.stringify({ command: verb, dryRun: opts.dryRun, version: ctx.version, packageRoot: ctx.pkgRoot, warnings, harnesses: rows }, null, 2)}\n`
      : wrapped(formatOutcomes(verb, rows, opts.dryRun, warnings)),
  );
  return rows.some((r) => r.status === 'refused' || r.status === 'failed') ? 1 : 0;
}
