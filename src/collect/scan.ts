/**
 * Backfill from transcripts already on disk, for every harness whose module reads them (HarnessModule.transcripts and
 * scanRoots: Claude Code's `<config>/projects/**`, sidechains included; Codex's `$CODEX_HOME/sessions/**`). Idempotent: requests are keyed by message/response id, children by their own id, and a
 * file whose size and mtime did not change since the last scan is not opened again. `since` skips files by mtime
 * before opening them (a day's report does not read a year of history).
 */
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { harnessList, HARNESSES } from '../adapters/index.js';
import type { Harness } from '../contracts/harness.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import type { Env } from '../io/paths.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import {
  reconcileCompletions,
  recordCompletion,
  recordDispatch,
  recordRequest,
  supersedeWholeChild,
} from '../observer/ledger/store.js';
import type { Priced, Pricer } from '../observer/pricing.js';
import type { FileParse } from '../observer/transcripts.js';

/** Rows (requests, plus one per file) per write transaction: long enough to amortise the commit, short enough that a
 * hook's drainer waiting on the lock (busy_timeout 2 s) is not starved. */
const BATCH_ROWS = 4000;

export type ScanRoot = { harness: Harness; dir: string };
/** A store of a harness's own (HarnessModule.stores: Hermes' state.db). */
export type StoreFile = { harness: Harness; path: string };

export type ScanOptions = {
  /** Epoch ms: files last modified before this are skipped unopened, and only requests at or after it count. */
  since?: number | null;
  /** Re-read files even when unchanged since the last scan. */
  full?: boolean;
  onFile?: (done: { path: string; bytes: number }) => void;
  /** Stores read after the transcripts, each in one bounded read (defaultStoreFiles). */
  stores?: readonly StoreFile[];
};

export type ScanSummary = {
  files: number;
  skippedBySince: number;
  unchanged: number;
  parsed: number;
  failed: number;
  bytes: number;
  requestsSeen: number;
  requestsNew: number;
  dispatches: number;
  completions: number;
  /** Each store read: its children stored, or why it was not read (also in the diagnostics log). */
  stores: { harness: Harness; path: string; children: number; error: string | null }[];
  /** Over every request in the ledger for the scanned harnesses (since `since`): the figure to compare with peers. */
  totals: { requests: number; pricedPico: bigint; unpricedRequests: number; unpricedModels: string[] };
  ms: number;
};

/** Where each harness that has transcripts keeps them (its module's scanRoots, per its documented environment variables). */
export function defaultScanRoots(env: Env = process.env): ScanRoot[] {
  const home = env.HOME || homedir();
  return harnessList().flatMap((m) =>
    m.transcripts && m.scanRoots ? m.scanRoots(env, home).map((dir) => ({ harness: m.id, dir })) : [],
  );
}

/** Where each harness with a store of its own keeps it (its module's stores.paths); absent files are left out. */
export function defaultStoreFiles(env: Env = process.env): StoreFile[] {
  const home = env.HOME || homedir();
  return harnessList().flatMap((m) =>
    m.stores ? m.stores.paths(env, home).flatMap((path) => (present(path) ? [{ harness: m.id, path }] : [])) : [],
  );
}

function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export type FoundFile = { harness: Harness; path: string; size: number; mtimeMs: number };

/** Walks a root for *.jsonl files (stat only; nothing is opened). Missing roots are empty. */
export function listTranscripts(roots: readonly ScanRoot[]): FoundFile[] {
  const out: FoundFile[] = [];
  const walk = (harness: Harness, dir: string, depth: number) => {
    if (depth > 12) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(harness, p, depth + 1);
      else if (e.isFile() && e.name.endsWith('.jsonl')) {
        try {
          const st = statSync(p);
          out.push({ harness, path: p, size: st.size, mtimeMs: Math.floor(st.mtimeMs) });
        } catch {
          /* vanished between readdir and stat */
        }
      }
    }
  };
  for (const r of roots) walk(r.harness, r.dir, 0);
  return out;
}

export type StoreCounts = Pick<ScanSummary, 'requestsSeen' | 'requestsNew' | 'dispatches' | 'completions'>;

export function storeParse(db: SqlDriver, parse: FileParse, pricer: Pricer, summary: StoreCounts): void {
  const pricedByKey = new Map<string, Priced | null>();
  for (const r of parse.requests) {
    const priced = pricer.price(r.model, parse.harness, r.usage);
    pricedByKey.set(r.key, priced);
    summary.requestsSeen++;
    if (recordRequest(db, parse.harness, parse.project, r, priced, pricer)) summary.requestsNew++;
  }
  for (const d of parse.dispatches) {
    const row = {
      harness: parse.harness,
      sessionId: d.sessionId ?? parse.sessionId,
      callId: d.callId,
      at: d.at ?? 0,
      project: parse.project,
      parentModel: d.parentModel,
      parentModelSource: 'transcript',
      requestedModel: d.requestedModel,
      requestedAgent: null,
      requestedTier: null,
      subagentType: d.subagentType,
      action: null,
      reason: null,
      tier: null,
      effectiveModel: null,
      catalogVersion: null,
      escalationFrom: d.escalationFrom,
      childAgentId: d.childAgentId,
      source: 'scan' as const,
    };
    if (recordDispatch(db, row, d.callId)) summary.dispatches++;
  }
  const runs = parse.childTurns ?? parse.children ?? (parse.child ? [parse.child] : []);
  const oneChildPerFile = HARNESSES[parse.harness].transcripts?.oneChildPerFile === true;
  for (const c of runs) {
    if (!c.usage) continue;
    const turnId = c.turnId ?? null;
    // Per-request prices summed: long-context tiers apply per request, which a summed usage cannot reproduce.
    const childPrices = parse.requests
      .filter((r) => (turnId ? r.turnId === turnId : oneChildPerFile || r.agentId === c.agentId))
      .map((r) => pricedByKey.get(r.key) ?? null);
    const allPriced = childPrices.length > 0 && childPrices.every((p) => p !== null);
    const first = childPrices.find((p) => p !== null) ?? null;
    // A store that sums the child's usage itself (Hermes' state.db) has no requests: the observer's pricing pass prices
    // the sum at the served model, which may yet change (modelAsConfigured).
    const cost =
      childPrices.length === 0
        ? null
        : allPriced
          ? {
              picoUsd: childPrices.reduce((a, p) => a + p!.picoUsd, 0n),
              catalogVersion: first!.catalogVersion,
              modelId: first!.modelId,
            }
          : { picoUsd: null, catalogVersion: pricer.catalogVersion, modelId: null };
    const stored = recordCompletion(db, {
      harness: parse.harness,
      sessionId: parse.sessionId,
      callId: c.callId,
      agentId: c.agentId,
      subagentType: c.subagentType,
      project: parse.project,
      requestedModel: c.requestedModel,
      servedModel: c.servedModel,
      usage: c.usage,
      status: c.complete ? 'ok' : 'unknown',
      outcome: c.outcome,
      startedAt: c.startedAt,
      endedAt: c.endedAt ?? c.startedAt ?? 0,
      usageSource: 'scan',
      transcriptPath: null,
      incomplete: c.incomplete,
      cost,
      fallbackKey: c.agentId,
      turnId,
      multiplier: c.multiplier ?? null,
      modelAsConfigured: c.modelAsConfigured ?? false,
    });
    if (stored) summary.completions++;
  }
  // The whole child read from its first line, turn by turn: a row from before per-turn keys covered the same turns.
  if (parse.childTurns?.length && parse.child && !parse.truncated)
    supersedeWholeChild(db, parse.harness, parse.child.agentId);
}

/**
 * One store, read whole (the reader bounds it) and stored in one transaction; a store that cannot be read (refused,
 * locked, damaged) is one diagnostic and one failed entry, and the scan goes on without it.
 */
function scanStore(
  db: SqlDriver,
  store: StoreFile,
  pricer: Pricer,
  since: number | null,
  summary: ScanSummary,
  env: Env,
): void {
  const reader = HARNESSES[store.harness].stores;
  const counts: StoreCounts = { requestsSeen: 0, requestsNew: 0, dispatches: 0, completions: 0 };
  summary.files++;
  try {
    if (!reader) throw new Error(`no store reader for ${store.harness}`);
    const parses = reader.read(store.path, { since });
    // A store is read whole at every scan (no file to find unchanged): what it adds are runs with usage that the
    // ledger did not have (new, or pending until now), not the ones it refreshed.
    const rows = db.prepare(
      `SELECT COUNT(*) AS n FROM completions WHERE harness = ? AND status <> 'pending' AND input IS NOT NULL`,
    );
    const before = rows.get<{ n: number }>(store.harness)!.n;
    db.transaction(() => parses.forEach((p) => storeParse(db, p, pricer, counts)));
    summary.parsed++;
    summary.completions += rows.get<{ n: number }>(store.harness)!.n - before;
    const children = parses.reduce((n, p) => n + (p.children?.length ?? 0), 0);
    summary.stores.push({ harness: store.harness, path: store.path, children, error: null });
  } catch (err) {
    summary.failed++;
    summary.stores.push({ harness: store.harness, path: store.path, children: 0, error: errorText(err) });
    diagnose('warn', 'observer:scan', errorText(err), { harness: store.harness, path: store.path }, env);
  }
}

export function scanTranscripts(
  db: SqlDriver,
  roots: readonly ScanRoot[],
  pricer: Pricer,
  opts: ScanOptions = {},
  env: Env = process.env,
): ScanSummary {
  const t0 = performance.now();
  const summary: ScanSummary = {
    files: 0,
    skippedBySince: 0,
    unchanged: 0,
    parsed: 0,
    failed: 0,
    bytes: 0,
    requestsSeen: 0,
    requestsNew: 0,
    dispatches: 0,
    completions: 0,
    stores: [],
    totals: { requests: 0, pricedPico: 0n, unpricedRequests: 0, unpricedModels: [] },
    ms: 0,
  };
  const files = listTranscripts(roots);
  summary.files = files.length;
  const known = db.prepare('SELECT size, mtime_ms FROM scanned_files WHERE path = ?');
  const remember = db.prepare(
    `INSERT INTO scanned_files (path, size, mtime_ms) VALUES (?, ?, ?)
     ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms`,
  );
  // Parsed files are stored in batches, one transaction each: a commit per small file cost more than its inserts.
  // A batch that fails is retried file by file, so one bad file fails alone.
  let batch: { f: FoundFile; parse: FileParse }[] = [];
  let batchRequests = 0;
  const storeOne = (f: FoundFile, parse: FileParse, counts: StoreCounts) => {
    storeParse(db, parse, pricer, counts);
    remember.run(f.path, f.size, f.mtimeMs);
  };
  const stored = (parse: FileParse, counts: StoreCounts) => {
    summary.parsed++;
    summary.bytes += parse.bytesRead;
    summary.requestsSeen += counts.requestsSeen;
    summary.requestsNew += counts.requestsNew;
    summary.dispatches += counts.dispatches;
    summary.completions += counts.completions;
  };
  const zero = (): StoreCounts => ({ requestsSeen: 0, requestsNew: 0, dispatches: 0, completions: 0 });
  const flush = () => {
    if (batch.length === 0) return;
    const counts = batch.map(zero);
    try {
      db.transaction(() => batch.forEach(({ f, parse }, i) => storeOne(f, parse, counts[i]!)));
      batch.forEach(({ parse }, i) => stored(parse, counts[i]!));
    } catch {
      for (const { f, parse } of batch) {
        const one = zero();
        try {
          db.transaction(() => storeOne(f, parse, one));
          stored(parse, one);
        } catch (err) {
          summary.failed++;
          diagnose('warn', 'observer:scan', errorText(err), { harness: f.harness, path: f.path }, env);
        }
      }
    }
    batch = [];
    batchRequests = 0;
  };
  for (const f of files) {
    if (opts.since != null && f.mtimeMs < opts.since) {
      summary.skippedBySince++;
      opts.onFile?.({ path: f.path, bytes: f.size });
      continue;
    }
    const prev = opts.full ? undefined : known.get<{ size: number; mtime_ms: number }>(f.path);
    if (prev && prev.size === f.size && prev.mtime_ms === f.mtimeMs) {
      summary.unchanged++;
      opts.onFile?.({ path: f.path, bytes: f.size });
      continue;
    }
    const parser = HARNESSES[f.harness].transcripts;
    try {
      if (!parser) throw new Error(`no transcript parser for ${f.harness}`);
      const parse = parser.parseFile(f.path);
      parser.learn?.(parse, env);
      batch.push({ f, parse });
      batchRequests += parse.requests.length + 1;
      if (batchRequests >= BATCH_ROWS) flush();
    } catch (err) {
      summary.failed++;
      diagnose('warn', 'observer:scan', errorText(err), { harness: f.harness, path: f.path }, env);
    }
    opts.onFile?.({ path: f.path, bytes: f.size });
  }
  flush();
  for (const store of opts.stores ?? []) scanStore(db, store, pricer, opts.since ?? null, summary, env);
  db.transaction(() => reconcileCompletions(db, pricer));

  const harnesses = [...new Set([...roots, ...(opts.stores ?? [])].map((r) => r.harness))];
  const marks = harnesses.map(() => '?').join(', ');
  const since = opts.since ?? 0;
  const tot = db
    .prepare(
      `SELECT COUNT(*) AS n, CAST(COALESCE(SUM(cost_pico), 0) AS TEXT) AS pico, SUM(cost_pico IS NULL) AS unpriced
     FROM requests WHERE harness IN (${marks}) AND COALESCE(at, 0) >= ?`,
    )
    .get<{ n: number; pico: string; unpriced: number | null }>(...harnesses, since);
  const models = db
    .prepare(
      `SELECT DISTINCT COALESCE(model, '(unknown)') AS m FROM requests WHERE harness IN (${marks}) AND COALESCE(at, 0) >= ?
       AND cost_pico IS NULL ORDER BY m LIMIT 50`,
    )
    .all<{ m: string }>(...harnesses, since);
  summary.totals = {
    requests: tot?.n ?? 0,
    pricedPico: BigInt(tot?.pico ?? '0'),
    unpricedRequests: tot?.unpriced ?? 0,
    unpricedModels: models.map((r) => r.m),
  };
  summary.ms = Math.round(performance.now() - t0);
  return summary;
}
