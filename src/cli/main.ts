/** The `tiergate` command. Each subcommand lives in its own file and is loaded only when named. */
import { diagnose, errorText } from '../io/diagnostics.js';
import { checkWritableDir } from '../io/files.js';
import { paths } from '../io/paths.js';
import { findPackageRoot, packageVersion } from '../install/context.js';
import { UsageError, UserError, usageLine, wholeNumber } from './args.js';
import { closest } from './suggest.js';
import { setTerminalChoice, wrapped } from './terminal.js';
import { HARNESS_IDS } from '../contracts/harness-ids.js';

/** What a command module exports: run(), and its help text (usage(argv) for one with subcommands, else USAGE). */
type CommandModule = { run(argv: string[]): Promise<number>; usage?: (argv: string[]) => string; USAGE?: string };
type Command = { summary: string; load: () => Promise<CommandModule>; hidden?: boolean };

/** In the order a new user needs them; `help` last. Hidden: older names kept working for scripts. */
export const COMMANDS: Record<string, Command> = {
  report: {
    summary: 'per-subagent cost, outcome and what tiergate saved (--by, --since, --json|--csv|--html FILE)',
    load: () => import('./commands/report.js'),
  },
  scan: {
    summary: 'backfill the ledger from Claude Code and Codex transcripts on disk',
    load: () => import('./commands/scan.js'),
  },
  explain: {
    summary: 'one dispatch decision, fully explained (--harness, --parent, --child)',
    load: () => import('./commands/explain.js'),
  },
  prices: { summary: 'prices show <model…> | list | refresh | status', load: () => import('./commands/prices.js') },
  budget: {
    summary: 'each spend budget, the spend against it and what the next dispatch meets',
    load: () => import('./commands/budget.js'),
  },
  config: { summary: 'config check: validate the policy files', load: () => import('./commands/config.js') },
  statusline: {
    summary: "one line for a harness's status bar: this session's subagent spend, corrections, budget left",
    load: () => import('./commands/statusline.js'),
  },
  install: {
    summary: `install tiergate into ${HARNESS_IDS.join('|')}, or every one found (--all)`,
    load: () => import('./commands/install.js'),
  },
  uninstall: { summary: 'remove tiergate again, restoring each file', load: () => import('./commands/uninstall.js') },
  doctor: {
    summary: 'check what is installed where, config, prices, ledger, diagnostics',
    load: () => import('./commands/doctor.js'),
  },
  push: {
    summary: "copy this machine's ledger into the team's PostgreSQL ledger (--status: when it last succeeded)",
    load: () => import('./commands/push.js'),
  },
  team: {
    summary: "team init: create or upgrade the team ledger's schema in PostgreSQL",
    load: () => import('./commands/team.js'),
  },
  demo: {
    summary: 'replay recorded payloads of every harness through the hooks into a temp ledger',
    load: () => import('./commands/demo.js'),
  },
  help: {
    summary: "this list; 'tiergate help <command>' or 'tiergate <command> --help' for its options",
    load: async () => ({ run: async (argv) => help(argv) }),
  },
  'prices-refresh': { summary: 'prices refresh', hidden: true, load: async () => subcommand('refresh') },
  'prices-status': { summary: 'prices status', hidden: true, load: async () => subcommand('status') },
};

/** An older top-level name for a `prices` subcommand. */
async function subcommand(sub: string): Promise<CommandModule> {
  const prices = await import('./commands/prices.js');
  return { run: (argv) => prices.run([sub, ...argv]), usage: (argv) => prices.usage([sub, ...argv]) };
}

function version(): string {
  const root = findPackageRoot();
  return root ? packageVersion(root) : '0.0.0';
}

const GLOBAL_OPTIONS = `Options for every command:
  -h, --help           the command's options
  -v, --version        tiergate's version (also: tiergate version)
  --color, --no-color  colour on or off (default: on a terminal, not NO_COLOR)
  --width N            lay tables and text out for N columns (default: the terminal's, else $COLUMNS, else 120)`;

function overview(): string {
  const visible = Object.entries(COMMANDS).filter(([, c]) => !c.hidden);
  const lines = visible.map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `tiergate ${version()}: keeps coding agents from overspending on subagents\n\nUsage: tiergate <command> [options]\n\nCommands:\n${lines.join('\n')}\n\n${GLOBAL_OPTIONS}\n`;
}

async function help(argv: string[]): Promise<number> {
  // `help --help` is a request for this same list, not a command named --help.
  const [name] = argv.filter((a) => a !== '--help' && a !== '-h');
  if (!name) return (process.stdout.write(wrapped(overview())), 0);
  const command = COMMANDS[name];
  if (!command) return unknownCommand(name);
  process.stdout.write(wrapped(usageOf(await command.load(), argv.slice(1))));
  return 0;
}

function usageOf(mod: CommandModule, argv: string[]): string {
  const text = mod.usage ? mod.usage(argv) : (mod.USAGE ?? '');
  return text.endsWith('\n') ? text : `${text}\n`;
}

function unknownCommand(name: string): 2 {
  const near = closest(name, [...Object.keys(COMMANDS).filter((n) => !COMMANDS[n]!.hidden), 'version']);
  process.stderr.write(
    `tiergate: unknown command '${name}'${near ? `: did you mean 'tiergate ${near}'?` : ''} Run 'tiergate help' for the list.\n`,
  );
  return 2;
}

/**
 * Takes the global options (--color, --no-color, --width N) off the line wherever they are, before `--`; the rest is
 * the command's. A bad --width is a usage error like any other.
 */
function globalOptions(argv: string[]): string[] {
  const out: string[] = [];
  let color: boolean | undefined;
  let width: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a === '--color' || a === '--no-color') color = a === '--color';
    else if (a === '--width' || a.startsWith('--width=')) {
      const v = a === '--width' ? argv[++i] : a.slice('--width='.length);
      const n = v === undefined ? undefined : wholeNumber(v);
      if (n === undefined || n === 0) throw new UsageError(`--width takes a number of columns (got '${v ?? ''}')`);
      width = n;
    } else out.push(a);
  }
  setTerminalChoice({ color, width });
  return out;
}

/** `--help`/`-h` anywhere before `--` asks for the command's (or subcommand's) help. */
function asksHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** Commands that never touch the data dir: `demo` records into a temporary one of its own. */
const NO_DATA_DIR = new Set(['help', 'demo']);

/**
 * Why the data dir cannot be used, or null. Checked before a command starts: a data dir that cannot be created or
 * written (a read-only disk, a path under /proc, a file in the way) ends the command at once with one line naming
 * it, instead of every later write failing on its own (or, before, Node's mkdir looping for ever on /proc paths).
 */
function dataDirProblem(env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = paths(env).data;
  try {
    checkWritableDir(dir);
    return null;
  } catch (err) {
    const why = errorText(err).replace(/\s+/g, ' ');
    return `the data directory ${dir} cannot be created or written (${why}); set TIERGATE_HOME (or XDG_DATA_HOME) to a writable directory`;
  }
}

export async function main(argv: string[]): Promise<number> {
  const [first = 'help', ...args] = argv;
  // `tiergate version` is what many CLIs accept (git, docker, go): it works rather than being a typo to correct.
  if (first === '--version' || first === '-v' || first === 'version')
    return (process.stdout.write(`${version()}\n`), 0);
  const name = first === '--help' || first === '-h' ? 'help' : first;
  const command = COMMANDS[name];
  if (!command) return unknownCommand(name);
  try {
    const rest = globalOptions(args);
    const mod = await command.load();
    if (name !== 'help' && asksHelp(rest)) {
      process.stdout.write(
        wrapped(
          usageOf(
            mod,
            rest.filter((a) => a !== '--help' && a !== '-h'),
          ),
        ),
      );
      return 0;
    }
    const unusable = NO_DATA_DIR.has(name) ? null : dataDirProblem();
    if (unusable) {
      process.stderr.write(`tiergate ${name}: ${unusable}\n`);
      return 1;
    }
    return await mod.run(rest);
  } catch (err) {
    // A command line that does not fit is the user's typo, not tiergate failing: no diagnostic, no stack, exit 2.
    if (err instanceof UsageError) {
      process.stderr.write(usageLine(name, err.message));
      return 2;
    }
    // Something the user can put right (a path that is a directory): one line, exit 1, not a tiergate fault.
    if (err instanceof UserError) {
      process.stderr.write(`tiergate ${name}: ${err.message}\n`);
      return 1;
    }
    diagnose('error', `cli:${name}`, errorText(err));
    process.stderr.write(
      `tiergate ${name}: ${errorText(err)} (a tiergate fault, noted in its diagnostic log; 'tiergate doctor' shows it)\n`,
    );
    return 1;
  } finally {
    setTerminalChoice({});
  }
}
