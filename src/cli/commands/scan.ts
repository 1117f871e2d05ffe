/** `tiergate scan`: backfill the ledger from Claude Code and Codex transcripts on disk. */
import cliProgress from 'cli-progress';
import { loadPricer } from '../../observer/default-pricer.js';
import { runObserver } from '../../observer/drain.js';
import { openLedger } from '../../observer/ledger/open.js';
import { picoToUsd } from '../../observer/pricing.js';
import { defaultScanRoots, listTranscripts, scanTranscripts, type ScanRoot, type ScanSummary } from '../../observer/scan.js';
import { parseCommandFlags, usageError } from '../args.js';
import { parseTime } from '../time.js';

export const USAGE = `Usage: tiergate scan [--since T] [--harness claude|codex] [--full] [--json]
  Reads ~/.claude/projects (or CLAUDE_CONFIG_DIR) and $CODEX_HOME/sessions. --since skips older files unopened;
  --full re-reads files that did not change since the last scan.`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('scan', USAGE, argv, {
    since: { type: 'string' }, harness: { type: 'string' }, full: { type: 'boolean' }, json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  if (values.help) return process.stdout.write(`${USAGE}\n`), 0;
  const since = values.since ? parseTime(values.since, Date.now()) : null;
  if (since === undefined) return usageError('scan', USAGE, `cannot read --since '${values.since}'`);
  if (values.harness && !['claude', 'codex'].includes(values.harness)) return usageError('scan', USAGE, `unknown --harness '${values.harness}'`);
  const roots: ScanRoot[] = defaultScanRoots(process.env).filter((r) => !values.harness || r.harness === values.harness);
  const pricer = loadPricer(process.env);
  const db = openLedger(process.env);
  let bar: cliProgress.SingleBar | null = null;
  try {
    runObserver(process.env, pricer, db);
    if (process.stderr.isTTY && !values.json) {
      const total = listTranscripts(roots).reduce((a, f) => a + f.size, 0);
      bar = new cliProgress.SingleBar(
        { stream: process.stderr, format: 'scan [{bar}] {percentage}% | {value}/{total} MB | {files} files', hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Math.max(1, Math.round(total / 1e6)), 0, { files: 0 });
    }
    let bytes = 0;
    let files = 0;
    const summary = scanTranscripts(db, roots, pricer, {
      since, full: values.full ?? false,
      onFile: ({ bytes: b }) => {
        bytes += b;
        files++;
        bar?.update(Math.round(bytes / 1e6), { files });
      },
    });
    bar?.stop();
    bar = null;
    process.stdout.write(values.json ? `${JSON.stringify(summaryJson(summary, roots), null, 2)}\n` : formatSummary(summary, roots));
    return summary.failed > 0 && summary.parsed === 0 ? 1 : 0;
  } finally {
    bar?.stop();
    db.close();
  }
}

export function summaryJson(s: ScanSummary, roots: readonly ScanRoot[]) {
  return {
    roots: roots.map((r) => r.dir), files: s.files, skippedBySince: s.skippedBySince, unchanged: s.unchanged, parsed: s.parsed,
    failed: s.failed, bytes: s.bytes, requestsSeen: s.requestsSeen, requestsNew: s.requestsNew, dispatches: s.dispatches,
    completions: s.completions, ms: s.ms,
    totals: {
      requests: s.totals.requests, costUsd: picoToUsd(s.totals.pricedPico), costPico: s.totals.pricedPico.toString(),
      unpricedRequests: s.totals.unpricedRequests, unpricedModels: s.totals.unpricedModels,
    },
  };
}

function formatSummary(s: ScanSummary, roots: readonly ScanRoot[]): string {
  const lines = [
    `scanned ${s.parsed} of ${s.files} transcript files (${(s.bytes / 1e6).toFixed(1)} MB) in ${(s.ms / 1000).toFixed(1)} s`,
    `  skipped: ${s.unchanged} unchanged since last scan, ${s.skippedBySince} older than --since, ${s.failed} unreadable`,
    `  requests: ${s.requestsSeen} read, ${s.requestsNew} new; subagent dispatches ${s.dispatches} new, completions ${s.completions} new`,
    `  total over all scanned requests: $${picoToUsd(s.totals.pricedPico, 2)} (${s.totals.requests} requests)`,
  ];
  if (s.totals.unpricedRequests > 0) {
    lines.push(`  unpriced: ${s.totals.unpricedRequests} requests on ${s.totals.unpricedModels.join(', ')} (not counted as $0)`);
  }
  if (s.files === 0) lines.push(`  no transcripts under ${roots.map((r) => r.dir).join(', ')}`);
  lines.push('Run `tiergate report` for per-subagent costs.');
  return `${lines.join('\n')}\n`;
}
