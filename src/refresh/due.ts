/**
 * Which sources are due, from the status file and the catalogs on disk. Kept apart from the job so the trigger, which
 * runs inside every SessionStart hook, bundles no HTTP client and no converters.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { paths, type Env } from '../io/paths.js';
import { isDue } from './schedule.js';
import type { RefreshConfig, RefreshSource } from './settings.js';
import { readStatus } from './status.js';

export function catalogPath(env: Env, sourceName: string): string {
  return join(paths(env).priceCacheDir, `${sourceName}.catalog.json`);
}

/** The sources that would be fetched now, per TTL and back-off. Cheap: reads the status file and stats catalogs. */
export function dueSources(env: Env, config: RefreshConfig, nowMs: number, status = readStatus(env)): RefreshSource[] {
  const ttlMs = config.ttlHours * 3_600_000;
  return config.sources.filter((s) =>
    isDue(status?.sources[s.name], nowMs, ttlMs, existsSync(catalogPath(env, s.name))),
  );
}
