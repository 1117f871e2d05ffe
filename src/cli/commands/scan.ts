/** `tiergate scan`: backfill the ledger from the harnesses' transcripts and stores (Hermes' state.db) on disk. */
import cliProgress from 'cli-progress';
import { harnessList } from '../../adapters/index.js';
import { loadPricer } from '../../observer/default-pricer.js';
import { runObserver } from '../../collect/drain.js';
import { openLedger } from '../../observer/ledger/open.js';
import { picoToUsd } from '../../observer/pricing.js';
import {
  defaultScanRoots,
  defaultStoreFiles,
  listTranscripts,
  scanTranscripts,
  type ScanRoot,
  type ScanSummary,
} from '../../collect/scan.js';
import { parseCommandFlags, usageError } from '../args.js';
import { unknownValue } from '../suggest.js';
import { parseTime } from '../time.js';
import { canonicalZone, localZone } from '../../report/zone.js';
import { usd } from '../../report/cells.js';
import { counted } from '../../report/count-text.js';

/** The harnesses whose transcripts or stores scan reads (their modules have a parser and scan roots, or a store). */
const SCANNABLE: string[] = harnessList()
  .filter((m) => (m.transcripts && m.scanRoots) || m.stores)
  .map((m) => m.id);

export const USAGE = `Usage: tiergate scan [--since T] [--timezone ZONE] [--harness ${SCANNABLE.join('|')}] [--full] [--json]
  Reads each harness's transcripts (~/.claude/projects or CLAUDE_CONFIG_DIR, $CODEX_HOME/sessions, …) and
  Hermes Agent's $HERMES_HOME/state.db (its delegated children: ids, models and tokens only).
  --since T   skip files older than T unopened: a day (2026-03-01), a time (2026-03-01T14:00) or 7d / 12h / 30m;
              days and times in your local time zone unless --timezone names another (UTC, Europe/Berlin)
  --full      re-read files that did not change since the last scan`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('scan', USAGE, argv, {
    since: { type: 'string' },
    timezone: { type: 'string' },
    harness: { type: 'string' },
    full: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  const zone = values.timezone === undefined ? localZone() : canonicalZone(values.timezone);
  if (zone === null)
    return usageError(
      'scan',
      `unknown --timezone '${values.timezone}': give an IANA name such as UTC or Europe/Berlin`,
    );
  const since = values.since ? parseTime(values.since, Date.now(), zone) : null;
  if (since === undefined)
    return usageError(
      'scan',
      `cannot read --since '${values.since}' (a day like 2026-03-01, a time like 2026-03-01T14:00, or 7d)`,
    );
  if (values.harness && !SCANNABLE.includes(values.harness))
    return usageError('scan', unknownValue('--harness', values.harness, SCANNABLE));
  const roots: ScanRoot[] = defaultScanRoots(process.env).filter(
    (r) => !values.harness || r.harness === values.harness,
  );
  const stores = defaultStoreFiles(process.env).filter((s) => !values.harness || s.harness === values.harness);
  const pricer = loadPricer(process.env);
  const db = openLedger(process.env);
  let bar: cliProgress.SingleBar | null = null;
  try {
    runObserver(process.env, pricer, db);
    if (process.stderr.isTTY && !values.json) {
      const total = listTranscripts(roots).reduce((a, f) => a + f.size, 0);
      bar = new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format: 'scan [{bar}] {percentage}% | {value}/{total} MB | {files} files',
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Math.max(1, Math.round(total / 1e6)), 0, { files: 0 });
    }
    let bytes = 0;
    let files = 0;
    const summary = scanTranscripts(db, roots, pricer, {
      since,
      full: values.full ?? false,
      stores,
      onFile: ({ bytes: b }) => {
        bytes += b;
        files++;
        bar?.update(Math.round(bytes / 1e6), { files });
      },
    });
    bar?.stop();
    bar = null;
    process.stdout.write(
      values.json ? `${JSON.stringify(summaryJson(summary, roots), null, 2)}\n` : formatSummary(summary, roots),
    );
    return summary.failed > 0 && summary.parsed === 0 ? 1 : 0;
  } finally {
    bar?.stop();
    db.close();
  }
}

export function summaryJson(s: ScanSummary, roots: readonly ScanRoot[]) {
  return {
    roots: roots.map((r) => r.dir),
    stores: s.stores,
    files: s.files,
    skippedBySince: s.skippedBySince,
    unchanged: s.unchanged,
    parsed: s.parsed,
    failed: s.failed,
    bytes: s.bytes,
    requestsSeen: s.requestsSeen,
    requestsNew: s.requestsNew,
    dispatches: s.dispatches,
    completions: s.completions,
    ms: s.ms,
    totals: {
      requests: s.totals.requests,
      costUsd: picoToUsd(s.totals.pricedPico),
      costPico: s.totals.pricedPico.toString(),
      unpricedRequests: s.totals.unpricedRequests,
      unpricedModels: s.totals.unpricedModels,
    },
  };
}

/** The text summary: counts and money as people read them (separators, one request, two requests). */
export function formatSummary(s: ScanSummary, roots: readonly ScanRoot[]): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const total = usd({ usd: picoToUsd(s.totals.pricedPico), pico: s.totals.pricedPico.toString() });
  const lines = [
    `scanned ${n(s.parsed)} of ${counted(s.files, 'transcript file')} (${(s.bytes / 1e6).toFixed(1)} MB) in ${(s.ms / 1000).toFixed(1)} s`,
    `  skipped: ${n(s.unchanged)} unchanged since last scan, ${n(s.skippedBySince)} older than --since, ${n(s.failed)} unreadable`,
    `  requests: ${n(s.requestsSeen)} read, ${n(s.requestsNew)} new; subagent dispatches ${n(s.dispatches)} new, completions ${n(s.completions)} new`,
    `  total over all scanned requests: ${total} (${counted(s.totals.requests, 'request')})`,
  ];
  if (s.totals.unpricedRequests > 0) {
    lines.push(
      `  unpriced: ${counted(s.totals.unpricedRequests, 'request')} on ${s.totals.unpricedModels.join(', ')} (not counted as $0)`,
    );
  }
  for (const st of s.stores)
    lines.push(
      st.error
        ? `  ${st.harness} store ${st.path}: not read (${st.error})`
        : `  ${st.harness} store ${st.path}: ${counted(st.children, 'subagent run')} read`,
    );
  if (s.files === 0) lines.push(`  no transcripts under ${roots.map((r) => r.dir).join(', ')}`);
  lines.push('Run `tiergate report` for per-subagent costs.');
  return `${lines.join('\n')}\n`;
}
