/** The `tiergate` command. Each subcommand lives in its own file and is loaded only when named. */
import { diagnose, errorText } from '../io/diagnostics.js';
import { UsageError } from './args.js';

type Command = { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> };

export const COMMANDS: Record<string, Command> = {
  help: { summary: 'list commands', load: async () => ({ run: async () => (printHelp(), 0) }) },
  prices: { summary: 'prices show <model…> | list [--family f] | refresh [--wait] | status: prices and their refresh', load: () => import('./commands/prices.js') },
  explain: { summary: 'explain --harness <h> --parent <model> --child <model|tier> [--json]', load: () => import('./commands/explain.js') },
  'prices-refresh': { summary: 'prices refresh [--wait] [--json]: fetch prices now', load: () => import('./commands/prices-refresh.js') },
  'prices-status': { summary: 'prices status [--json]: age, source, model count, last error', load: () => import('./commands/prices-status.js') },
  config: { summary: 'config check [--json]: validate the policy files', load: () => import('./commands/config.js') },
  report: { summary: 'per-subagent cost and outcome report [--by …] [--json|--csv|--html FILE]', load: () => import('./commands/report.js') },
  scan: { summary: 'backfill the ledger from Claude Code and Codex transcripts on disk', load: () => import('./commands/scan.js') },
  install: { summary: 'install tiergate into claude|codex|cursor|opencode|pi (--all, --dry-run, --run, --json)', load: () => import('./commands/install.js') },
  uninstall: { summary: 'remove tiergate again, restoring each file (--all, --dry-run, --run, --json)', load: () => import('./commands/uninstall.js') },
  demo: { summary: 'replay recorded payloads of every harness through the hooks into a temp ledger (--json, --keep)', load: () => import('./commands/demo.js') },
  doctor: { summary: 'check what is installed where, config, prices, ledger, diagnostics (--json)', load: () => import('./commands/doctor.js') },
};

function printHelp(): void {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  process.stdout.write(`tiergate: keeps coding agents from overspending on subagents\n\nUsage: tiergate <command> [options]\n\n${lines.join('\n')}\n`);
}

export async function main(argv: string[]): Promise<number> {
  const [name = 'help', ...rest] = argv;
  const command = COMMANDS[name === '--help' || name === '-h' ? 'help' : name];
  if (!command) {
    process.stderr.write(`tiergate: unknown command '${name}'\n`);
    printHelp();
    return 2;
  }
  try {
    const mod = await command.load();
    return await mod.run(rest);
  } catch (err) {
    // A command line that does not fit is the user's typo, not tiergate failing: no diagnostic, no stack, exit 2.
    if (err instanceof UsageError) {
      process.stderr.write(`tiergate ${name}: ${err.message}\nRun 'tiergate ${name} --help' for its usage.\n`);
      return 2;
    }
    diagnose('error', `cli:${name}`, errorText(err));
    process.stderr.write(`tiergate ${name}: ${errorText(err)}\n`);
    return 1;
  }
}
