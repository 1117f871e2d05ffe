/**
 * The refresh job: under the lock, for each due source, fetch -> parse -> convert -> validate every row -> write the
 * catalog atomically as `<priceCacheDir>/<source>.catalog.json`. A failure leaves the previous catalog in place and
 * lands in the status file; one source failing does not stop the next.
 */
import { CatalogSchema, PriceRowSchema, type Catalog, type PriceRow } from '../contracts/prices.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { writeFileAtomic } from '../io/files.js';
import { writeEffective } from '../config/policy-load.js';
import { readTextCapped } from '../io/read-capped.js';
import { MAX_CATALOG_BYTES } from '../prices/load.js';
import { serialiseCatalog } from '../prices/merge.js';
import { paths, type Env } from '../io/paths.js';
import { convertSource, type Converter } from './convert.js';
import { FetchError, fetchText, type FetchOptions } from './http.js';
import { acquireLock, adoptLock, releaseLock } from './lock.js';
import { catalogPath, dueSources } from './due.js';
import { SOURCE_NAME, refreshSwitch, type RefreshConfig, type RefreshSource } from './settings.js';
import {
  blankSourceStatus,
  emptyStatus,
  readStatus,
  writeStatus,
  type RefreshStatus,
  type SourceStatus,
} from './status.js';

/** More rows than any real catalog has (models.dev: ≈8,300 entries); past it the document is not what we expect. */
export const MAX_ROWS = 50_000;
/** A new catalog under half the size of the one it replaces is more likely a broken feed than a real change. */
export const MIN_KEEP_RATIO = 0.5;

export { catalogPath, dueSources };

export type RefreshOptions = {
  env: Env;
  config: RefreshConfig;
  /** Ignore the TTL and back-off (an explicit `tiergate prices refresh`); the lock still applies. */
  force?: boolean;
  /** The lock was taken by the launcher (trigger) and handed over by nonce. */
  lockNonce?: string;
  now?: () => Date;
  http?: FetchOptions;
  convert?: Converter;
};

export type SourceOutcome = {
  name: string;
  /** fresh: within the TTL; waiting: backing off after a failure (error says which). */
  result: 'updated' | 'fresh' | 'waiting' | 'failed';
  models: number | null;
  error: string | null;
  ms: number;
};

export type RefreshReport =
  | { result: 'done'; sources: SourceOutcome[] }
  | { result: 'locked' | 'disabled'; why: string; sources: [] };

export async function runRefresh(opts: RefreshOptions): Promise<RefreshReport> {
  const { env, config } = opts;
  const now = opts.now ?? (() => new Date());
  const sw = refreshSwitch(env, config);
  if (!sw.on) return { result: 'disabled', why: sw.why, sources: [] };

  const lockPath = paths(env).refreshLock;
  let nonce: string | null;
  if (opts.lockNonce) nonce = adoptLock(lockPath, opts.lockNonce) ? opts.lockNonce : acquireLock(lockPath);
  else nonce = acquireLock(lockPath);
  if (!nonce) return { result: 'locked', why: 'another refresh is running', sources: [] };

  try {
    const status = readStatus(env) ?? emptyStatus(now());
    const due = opts.force ? config.sources : dueSources(env, config, now().getTime(), status);
    const outcomes: SourceOutcome[] = [];
    for (const source of config.sources) {
      if (due.includes(source)) {
        outcomes.push(await refreshOne(source, status, opts, now));
        continue;
      }
      const st = status.sources[source.name];
      const waiting = (st?.consecutiveFailures ?? 0) > 0;
      outcomes.push({
        name: source.name,
        result: waiting ? 'waiting' : 'fresh',
        models: st?.models ?? null,
        error: waiting ? `${st?.lastErrorKind}: ${st?.lastError}` : null,
        ms: 0,
      });
    }
    return { result: 'done', sources: outcomes };
  } finally {
    releaseLock(lockPath, nonce);
    // Last, after every write into the price directory (the effective file records its identity).
    writeEffective(env);
  }
}

async function refreshOne(
  source: RefreshSource,
  status: RefreshStatus,
  opts: RefreshOptions,
  now: () => Date,
): Promise<SourceOutcome> {
  const { env } = opts;
  const started = now();
  const t0 = performance.now();
  const prev: SourceStatus = {
    ...blankSourceStatus(source),
    ...status.sources[source.name],
    url: source.url,
    format: source.format,
  };
  // The attempt marker goes to disk before the network is touched: a run killed mid-fetch still backs off.
  const attempt: SourceStatus = {
    ...prev,
    lastAttemptAt: started.toISOString(),
    pendingSince: started.toISOString(),
    consecutiveFailures: prev.consecutiveFailures + 1,
  };
  save(env, status, attempt, now);

  try {
    if (!SOURCE_NAME.test(source.name))
      throw new RefreshError('config', `source name '${source.name}' is not a safe file name`);
    const fetched = await fetchText(source.url, { env, ...opts.http });
    let json: unknown;
    try {
      json = JSON.parse(fetched.text);
    } catch (err) {
      throw new RefreshError(
        'malformed',
        `response is not JSON (${fetched.bytes} bytes): ${errorText(err).slice(0, 200)}`,
      );
    }
    const fetchedAt = now();
    const version = `refresh-${source.name}-${compactTime(fetchedAt)}`;
    const { models, skipped } = validatedRows(source, json, version, opts.convert ?? convertSource);
    const count = Object.keys(models).length;
    const previousCount = previousModelCount(env, source.name);
    if (previousCount !== null && count < previousCount * MIN_KEEP_RATIO) {
      throw new RefreshError(
        'shrunk',
        `only ${count} models where the current catalog has ${previousCount}: kept the current one`,
      );
    }
    const catalog: Catalog = CatalogSchema.parse({
      format: 'tiergate-catalog/1',
      version,
      date: fetchedAt.toISOString().slice(0, 10),
      fetchedAt: fetchedAt.toISOString(),
      source: `${source.name} ${fetched.url}`,
      models,
      aliases: {},
    });
    const file = catalogPath(env, source.name);
    // One model per line: a hook reads only the rows it looks up (prices/catalog-lines.ts).
    writeFileAtomic(file, serialiseCatalog(catalog));
    const ms = Math.round(performance.now() - t0);
    save(
      env,
      status,
      {
        ...attempt,
        pendingSince: null,
        lastSuccessAt: fetchedAt.toISOString(),
        lastError: null,
        lastErrorKind: null,
        consecutiveFailures: 0,
        models: count,
        skippedRows: skipped,
        bytes: fetched.bytes,
        durationMs: ms,
        catalogFile: file,
        catalogVersion: version,
      },
      now,
    );
    return { name: source.name, result: 'updated', models: count, error: null, ms };
  } catch (err) {
    const kind = err instanceof FetchError || err instanceof RefreshError ? err.kind : 'internal';
    const message = err instanceof FetchError || err instanceof RefreshError ? err.message : errorText(err);
    const ms = Math.round(performance.now() - t0);
    diagnose('warn', `prices.refresh:${source.name}`, message, { kind }, env);
    try {
      save(
        env,
        status,
        { ...attempt, pendingSince: null, lastError: message, lastErrorKind: kind, durationMs: ms },
        now,
      );
    } catch (saveErr) {
      diagnose('error', 'prices.refresh:status', errorText(saveErr), {}, env);
    }
    return { name: source.name, result: 'failed', models: null, error: `${kind}: ${message}`, ms };
  }
}

class RefreshError extends Error {
  constructor(
    readonly kind: 'config' | 'malformed' | 'schema' | 'shrunk',
    message: string,
  ) {
    super(message);
    this.name = 'RefreshError';
  }
}

/** Convert, then check every row against the contract: a bad row is dropped and counted, never cached. */
function validatedRows(
  source: RefreshSource,
  json: unknown,
  version: string,
  convert: Converter,
): { models: Record<string, PriceRow>; skipped: number } {
  let converted;
  try {
    converted = convert(source.format, json, version);
  } catch (err) {
    throw new RefreshError('schema', `not a ${source.format} document: ${errorText(err).slice(0, 300)}`);
  }
  if (!Array.isArray(converted?.rows)) throw new RefreshError('schema', `not a ${source.format} document`);
  if (converted.rows.length > MAX_ROWS)
    throw new RefreshError('schema', `${converted.rows.length} rows, more than the ${MAX_ROWS} cap`);
  const models: Record<string, PriceRow> = {};
  let skipped = Number.isInteger(converted.skipped) ? converted.skipped : 0;
  for (const row of converted.rows) {
    const r = PriceRowSchema.safeParse(row);
    if (!r.success || r.data.id === '') {
      skipped++;
      continue;
    }
    // First row wins for an id: converters list a model's own route before its aliases and variants.
    if (!(r.data.id in models)) models[r.data.id] = { ...r.data, source: r.data.source || version };
  }
  if (Object.keys(models).length === 0) {
    const notes = Array.isArray(converted.notes) ? converted.notes.slice(0, 3).join('; ') : '';
    throw new RefreshError(
      'schema',
      `no valid ${source.format} price rows (${skipped} rejected${notes ? `; ${notes}` : ''})`,
    );
  }
  return { models, skipped };
}

function previousModelCount(env: Env, name: string): number | null {
  try {
    const parsed = CatalogSchema.safeParse(
      JSON.parse(readTextCapped(catalogPath(env, name), MAX_CATALOG_BYTES, { follow: false })),
    );
    return parsed.success ? Object.keys(parsed.data.models).length : null;
  } catch {
    return null;
  }
}

function save(env: Env, status: RefreshStatus, source: SourceStatus, now: () => Date): void {
  status.sources[source.name] = source;
  status.updatedAt = now().toISOString();
  writeStatus(env, status);
}

function compactTime(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}
