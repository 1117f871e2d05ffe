/** Doctor checks of tiergate's own state: policy config, price catalog, ledger and spool, hook code cache, the diagnostic log. */
import { readTailLines } from '../observer/tail.js';
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { loadPolicy } from '../config/load.js';
import { CatalogSchema } from '../contracts/prices.js';
import { RefreshStatusSchema } from '../refresh/status.js';
import { readText } from '../install/backup.js';
import { paths, type Env } from '../io/paths.js';
import { CODE_CACHE_SUFFIX, codeCacheDirProblem, readCodeCache } from '../io/code-cache-file.js';
import type { Check } from './check.js';
import { CORRUPT_SUFFIX } from '../observer/ledger/open.js';
import {
  currentInputs,
  effectivePath,
  MAX_EFFECTIVE_BYTES,
  parseEffective,
  sameInputs,
} from '../config/effective-file.js';
import { readTextCapped } from '../io/read-capped.js';

const DAY = 86_400_000;
/** The bundled snapshot is a fallback; past this age without a refreshed catalog, prices are likely stale. */
export const STALE_CATALOG_DAYS = 90;
const TAIL_BYTES = 64 * 1024;

export function checkConfig(env: Env, cwd: string): Check[] {
  const loaded = loadPolicy(env, cwd);
  const files = loaded.files.length ? loaded.files.join(', ') : 'none (built-in defaults)';
  if (loaded.diagnostics.length) {
    return [
      {
        section: 'config',
        name: 'policy',
        status: 'error',
        detail: `${loaded.diagnostics.length} problem(s) in ${files}: ${loaded.diagnostics.join('; ')}`,
        data: { files: loaded.files, diagnostics: loaded.diagnostics },
      },
    ];
  }
  return [
    {
      section: 'config',
      name: 'policy',
      status: 'ok',
      detail: `mode ${loaded.policy.mode}; files: ${files}`,
      data: { files: loaded.files },
    },
  ];
}

function newestCache(dir: string): { file: string; mtime: number } | null {
  try {
    return (
      readdirSync(dir)
        .filter((f) => f.endsWith('.json') && f !== 'status.json')
        .map((f) => ({ file: join(dir, f), mtime: statSync(join(dir, f)).mtimeMs }))
        .sort((a, b) => b.mtime - a.mtime)[0] ?? null
    );
  } catch {
    return null;
  }
}

export function checkPrices(env: Env, pkgRoot: string, now: number): Check[] {
  const out: Check[] = [];
  const file = join(pkgRoot, 'data', 'prices-snapshot.json');
  const text = readText(file);
  let snapshotAge: number | null = null;
  if (text === null) {
    out.push({ section: 'prices', name: 'bundled snapshot', status: 'error', detail: `missing: ${file}` });
  } else {
    try {
      const c = CatalogSchema.parse(JSON.parse(text));
      snapshotAge = Math.max(0, Math.floor((now - Date.parse(c.date)) / DAY));
      out.push({
        section: 'prices',
        name: 'bundled snapshot',
        status: 'ok',
        detail: `${c.version} (${c.source}), ${Object.keys(c.models).length} models, dated ${c.date} (${snapshotAge} days old)`,
        data: { version: c.version, date: c.date, source: c.source, ageDays: snapshotAge },
      });
    } catch (err) {
      out.push({
        section: 'prices',
        name: 'bundled snapshot',
        status: 'error',
        detail: `${file} is not a valid catalog: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`,
      });
    }
  }
  const cache = newestCache(paths(env).priceCacheDir);
  const status = readText(paths(env).refreshStatus);
  const cacheError = cache ? invalidCatalog(cache.file) : null;
  if (cache && cacheError) {
    // loadCachedCatalogs skips such a file (one diagnostic per hook): prices fall back to older layers.
    out.push({
      section: 'prices',
      name: 'refreshed catalog',
      status: 'warn',
      detail: `${cache.file} is unreadable (${cacheError}): ignored, prices fall back to ${snapshotAge === null ? 'the bundled snapshot' : 'older refreshed catalogs or the bundled snapshot'}; the next refresh (tiergate prices refresh) replaces it`,
      data: { file: cache.file, error: cacheError, recovered: 'fallback' },
    });
  } else if (cache) {
    const days = Math.max(0, Math.floor((now - cache.mtime) / DAY));
    out.push({
      section: 'prices',
      name: 'refreshed catalog',
      status: 'ok',
      detail: `${cache.file}, fetched ${days} days ago`,
      data: { file: cache.file, ageDays: days, status: status ? safeJson(status) : null },
    });
  } else {
    const stale = snapshotAge !== null && snapshotAge > STALE_CATALOG_DAYS;
    out.push({
      section: 'prices',
      name: 'refreshed catalog',
      status: stale ? 'warn' : 'info',
      detail: `none yet; prices come from the bundled snapshot${stale ? ` (older than ${STALE_CATALOG_DAYS} days)` : ''}`,
      data: { status: status ? safeJson(status) : null },
    });
  }
  out.push(...refreshSources(status));
  return out;
}

/** Why a refreshed catalog file would be skipped by the loader, or null when it is a valid catalog. */
function invalidCatalog(file: string): string | null {
  const text = readText(file);
  if (text === null) return 'cannot be read';
  try {
    const r = CatalogSchema.safeParse(JSON.parse(text));
    return r.success ? null : 'not a valid catalog';
  } catch {
    return 'not valid JSON';
  }
}

/** One line per refresh source that keeps failing (its catalog then ages; the previous one stays in use). */
function refreshSources(statusText: string | null): Check[] {
  if (statusText === null) return [];
  const parsed = RefreshStatusSchema.safeParse(safeJson(statusText));
  if (!parsed.success)
    return [
      { section: 'prices', name: 'refresh status', status: 'warn', detail: 'the refresh status file is unreadable' },
    ];
  return Object.values(parsed.data.sources)
    .filter((s) => s.consecutiveFailures > 0)
    .map((s) => ({
      section: 'prices' as const,
      name: `refresh ${s.name}`,
      status: 'warn' as const,
      detail:
        `${s.consecutiveFailures} failed attempt(s) since ${s.lastSuccessAt ?? 'ever'}: ${s.lastErrorKind ?? ''} ${s.lastError ?? ''}`.trim(),
      data: { ...s },
    }));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 200);
  }
}

export function checkLedger(env: Env): Check[] {
  const p = paths(env);
  const out: Check[] = [];
  let spooled = 0;
  try {
    spooled = readdirSync(p.spoolDir).filter((f) => f.endsWith('.jsonl')).length;
  } catch {
    /* no spool yet */
  }
  const aside = setAside(p.ledger);
  if (aside.length) {
    out.push({
      section: 'ledger',
      name: 'rebuilt',
      status: 'warn',
      detail: `the ledger was found corrupt and rebuilt ${aside.length} time(s); the old file is kept at ${aside[aside.length - 1]} (delete it once you no longer need its rows; tiergate scan refills from transcripts)`,
      data: { setAside: aside, recovered: 'rebuild' },
    });
  }
  let st;
  try {
    st = statSync(p.ledger);
  } catch {
    out.push({
      section: 'ledger',
      name: 'ledger',
      status: 'info',
      detail: `no ledger yet (${p.ledger}); ${spooled} spool file(s) waiting`,
      data: { spoolFiles: spooled },
    });
    return out;
  }
  const mode = st.mode & 0o777;
  const data: Record<string, unknown> = { file: p.ledger, bytes: st.size, mode: mode.toString(8), spoolFiles: spooled };
  if (mode & 0o077)
    out.push({
      section: 'ledger',
      name: 'permissions',
      status: 'error',
      detail: `${p.ledger} is mode ${mode.toString(8)}; it must be 600 (user only)`,
      data,
    });
  try {
    const require = createRequire(import.meta.url);
    const Database = require('better-sqlite3') as new (
      f: string,
      o: { readonly: boolean; fileMustExist: boolean },
    ) => { pragma(s: string, o: { simple: boolean }): unknown; close(): void };
    const db = new Database(p.ledger, { readonly: true, fileMustExist: true });
    try {
      const check = String(db.pragma('quick_check', { simple: true }));
      out.push({
        section: 'ledger',
        name: 'integrity',
        status: check === 'ok' ? 'ok' : 'error',
        detail: `${p.ledger}: quick_check ${check}; ${st.size} bytes; ${spooled} spool file(s) waiting`,
        data,
      });
    } finally {
      db.close();
    }
  } catch (err) {
    out.push({
      section: 'ledger',
      name: 'integrity',
      status: 'error',
      detail: `cannot open ${p.ledger}: ${err instanceof Error ? err.message : String(err)}`,
      data,
    });
  }
  return out;
}

/** Ledger files openLedger moved aside as corrupt (`<ledger>.corrupt-<time>`), oldest first. */
function setAside(ledger: string): string[] {
  const dir = dirname(ledger);
  const prefix = `${basename(ledger)}${CORRUPT_SUFFIX}`;
  try {
    return readdirSync(dir)
      .filter((f) => f.startsWith(prefix) && !/-(wal|shm)$/.test(f))
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** At most the last TAIL_BYTES of the log, complete lines only (the observer's bounded tail reader). */
function tail(file: string): string[] {
  try {
    return readTailLines(file, { maxBytes: TAIL_BYTES, noFollow: true }).lines;
  } catch {
    return [];
  }
}

export function checkDiagnostics(env: Env, now: number, last = 5): Check[] {
  const file = paths(env).diagnostics;
  const lines = tail(file);
  if (!lines.length) return [{ section: 'diagnostics', name: 'log', status: 'ok', detail: `no diagnostics (${file})` }];
  const parsed = lines.map((l) => safeJson(l));
  // A line torn by a crash or a disk-full write is skipped, and said so: the log itself stays usable.
  const unreadable = parsed.filter((r) => r === null || typeof r !== 'object').length;
  const recs = parsed.filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object') as {
    t?: string;
    level?: string;
    where?: string;
    message?: string;
  }[];
  const recentErrors = recs.filter((r) => r.level === 'error' && r.t && now - Date.parse(r.t) < DAY).length;
  const shown = recs.slice(-last).map((r) => `${r.t ?? '?'} ${r.level ?? '?'} ${r.where ?? '?'}: ${r.message ?? ''}`);
  return [
    {
      section: 'diagnostics',
      name: 'log',
      status: recentErrors ? 'warn' : 'ok',
      detail: `${recentErrors} error(s) in the last 24 h (${file})${unreadable ? `; ${unreadable} unreadable line(s) skipped` : ''}; last ${shown.length}:\n${shown.map((s) => `      ${s}`).join('\n')}`,
      data: { file, recentErrors, unreadable, last: shown },
    },
  ];
}

/** The effective file (config/effective-file.ts). One out of date is normal after an edit: the next dispatch rebuilds it. */
export function checkEffectiveFile(env: Env): Check[] {
  const path = effectivePath(env);
  const check = (status: Check['status'], detail: string, data: Record<string, unknown>): Check[] => [
    { section: 'hook', name: 'effective file', status, detail, data: { path, ...data } },
  ];
  let text: string;
  try {
    text = readTextCapped(path, MAX_EFFECTIVE_BYTES, { follow: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return check('info', `none yet (${path}); the next dispatch or \`tiergate config check\` writes it`, {});
    return check('warn', `${path} unreadable (${String(err)}): ignored; the next dispatch rebuilds it`, {
      recovered: 'rewrite',
    });
  }
  try {
    const fresh = sameInputs(parseEffective(text).inputs, currentInputs(env));
    const detail = fresh ? `${path}, up to date` : `${path}, out of date: the next dispatch rebuilds it`;
    return check('ok', detail, { fresh, recovered: null });
  } catch (err) {
    return check('warn', `${path} damaged (${String(err)}): ignored; the next dispatch rebuilds it`, {
      recovered: 'rewrite',
    });
  }
}

/**
 * The command hooks' V8 code cache (hook-runner/loader.ts): its files, each checked as the hook checks it (a damaged
 * one is ignored and replaced by the next hook of that bundle, so it is a warning, never a failure).
 */
export function checkCodeCache(env: Env): Check[] {
  const dir = paths(env).codeCacheDir;
  const check = (status: Check['status'], detail: string, files = 0, damaged = 0): Check[] => [
    { section: 'hook', name: 'code cache', status, detail, data: { dir, files, damaged } },
  ];
  if (!lstatSync(dir, { throwIfNoEntry: false })) return check('info', `none yet (${dir}); the next hook writes it`);
  const refused = codeCacheDirProblem(dir);
  if (refused) return check('warn', `${refused}: hooks compile from source`);
  const names = readdirSync(dir).filter((f) => f.endsWith(CODE_CACHE_SUFFIX));
  const damaged = names.filter((f) => readCodeCache(join(dir, f)).data === undefined);
  if (damaged.length)
    return check(
      'warn',
      `${damaged.length} of ${names.length} file(s) in ${dir} cannot be used (${damaged.join(', ')}): the next hook of each replaces it`,
      names.length,
      damaged.length,
    );
  return check('ok', `${names.length} file(s) in ${dir} (V8 code cache)`, names.length);
}
