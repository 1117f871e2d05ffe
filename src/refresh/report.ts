/** What `tiergate prices status` shows: one row per configured source, from the status file and the catalogs on disk. */
import { existsSync } from 'node:fs';
import { CatalogSchema } from '../contracts/prices.js';
import { paths, type Env } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';
import { MAX_CATALOG_BYTES } from '../prices/load.js';
import { lockHeld, readLock } from './lock.js';
import { catalogPath } from './due.js';
import { nextDueAt } from './schedule.js';
import { refreshSwitch, type RefreshConfig } from './settings.js';
import { readStatus } from './status.js';

export type SourceRow = {
  name: string;
  format: string;
  url: string;
  catalogFile: string;
  /** From the catalog file itself (null when there is none or it does not parse). */
  catalogVersion: string | null;
  fetchedAt: string | null;
  ageMs: number | null;
  models: number | null;
  lastAttemptAt: string | null;
  lastError: string | null;
  lastErrorKind: string | null;
  consecutiveFailures: number;
  /** An attempt started and never finished (killed, or still running). */
  interrupted: boolean;
  nextDueAt: string | null;
};

export type RefreshOverview = {
  enabled: boolean;
  disabledWhy: string | null;
  ttlHours: number;
  running: { pid: number; since: string } | null;
  statusFile: string;
  sources: SourceRow[];
};

export function refreshOverview(env: Env, config: RefreshConfig, nowMs = Date.now()): RefreshOverview {
  const sw = refreshSwitch(env, config);
  const status = readStatus(env);
  const lockPath = paths(env).refreshLock;
  const held = lockHeld(lockPath, nowMs) ? readLock(lockPath) : null;
  const ttlMs = config.ttlHours * 3_600_000;
  const sources = config.sources.map((s): SourceRow => {
    const st = status?.sources[s.name];
    const file = catalogPath(env, s.name);
    const cat = readCatalogHead(file);
    const fetchedAt = cat?.fetchedAt ?? null;
    const next = nextDueAt(st, nowMs, ttlMs, existsSync(file));
    return {
      name: s.name,
      format: s.format,
      url: s.url,
      catalogFile: file,
      catalogVersion: cat?.version ?? null,
      fetchedAt,
      ageMs: fetchedAt ? nowMs - Date.parse(fetchedAt) : null,
      models: cat?.models ?? null,
      lastAttemptAt: st?.lastAttemptAt ?? null,
      lastError: st?.lastError ?? null,
      lastErrorKind: st?.lastErrorKind ?? null,
      consecutiveFailures: st?.consecutiveFailures ?? 0,
      interrupted: Boolean(st?.pendingSince) && !held,
      nextDueAt: next === null ? null : new Date(next).toISOString(),
    };
  });
  return {
    enabled: sw.on,
    disabledWhy: sw.on ? null : sw.why,
    ttlHours: config.ttlHours,
    running: held ? { pid: held.pid, since: new Date(held.startedAt).toISOString() } : null,
    statusFile: paths(env).refreshStatus,
    sources,
  };
}

function readCatalogHead(file: string): { version: string; fetchedAt: string | null; models: number } | null {
  try {
    const c = CatalogSchema.safeParse(JSON.parse(readTextCapped(file, MAX_CATALOG_BYTES, { follow: false })));
    if (!c.success) return null;
    return { version: c.data.version, fetchedAt: c.data.fetchedAt ?? null, models: Object.keys(c.data.models).length };
  } catch {
    return null;
  }
}
