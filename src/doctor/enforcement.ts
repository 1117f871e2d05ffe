/**
 * Per harness: did its children run on the models tiergate's corrections set (observer/enforcement.ts)? From the
 * ledger as the last observer pass left it (read-only, never migrated or drained here) and the "rewrite ignored"
 * markers the dispatch path reads. A harness seen ignoring a correction is a warning either way: with
 * `onIgnoredRewrite: "correct"` its costs are not what the report's corrections suggest; with "deny" its over-ceiling
 * dispatches are being denied, which the user should know and can undo.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { loadPolicy } from '../config/load.js';
import { HarnessSchema, type Harness } from '../contracts/harness.js';
import { paths, type Env } from '../io/paths.js';
import { readRewriteMarker, rewriteMarkerPath, type RewriteMarker } from '../observer/rewrite-marker.js';
import type { Check } from './check.js';

type Counts = Record<'honoured' | 'ignored' | 'not-checked' | 'pending', number>;

type ReadonlyDb = { prepare(sql: string): { all(): unknown[] }; close(): void };

/** Corrections per harness and enforcement value; null when the ledger is absent or older than migration 7. */
function ledgerCounts(env: Env): Map<Harness, Counts> | null {
  const file = paths(env).ledger;
  if (!existsSync(file)) return null;
  const require = createRequire(import.meta.url);
  const Database = require('better-sqlite3') as new (
    f: string,
    o: { readonly: boolean; fileMustExist: boolean },
  ) => ReadonlyDb;
  let db: ReadonlyDb;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
  try {
    const rows = db
      .prepare(
        "SELECT harness, COALESCE(enforcement, 'pending') AS e, COUNT(*) AS n FROM dispatches WHERE action = 'correct' GROUP BY harness, e",
      )
      .all() as { harness: Harness; e: keyof Counts; n: number }[];
    const out = new Map<Harness, Counts>();
    for (const r of rows) {
      const c = out.get(r.harness) ?? { honoured: 0, ignored: 0, 'not-checked': 0, pending: 0 };
      if (Object.hasOwn(c, r.e)) c[r.e] += r.n;
      out.set(r.harness, c);
    }
    return out;
  } catch {
    return null; // no enforcement column yet: the next observer pass migrates the ledger
  } finally {
    db.close();
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

function ignoredDetail(
  harness: Harness,
  c: Counts | undefined,
  marker: RewriteMarker | null,
  deny: boolean,
  file: string,
): string {
  const ignored = c?.ignored ?? marker?.ignored ?? 0;
  const checked = c ? c.honoured + c.ignored : null;
  const last = marker?.last;
  const example = last
    ? ` (latest: tiergate set ${last.decided ?? '?'}, ${last.served ?? '?'} served it, ${iso(last.at)})`
    : '';
  const what = `${ignored}${checked !== null ? ` of ${checked}` : ''} checked correction(s) not honoured: ${harness} ran another model than tiergate set${example}`;
  if (!deny)
    return `${what}. Its corrections do not save what the report says; set "onIgnoredRewrite": "deny" to deny with a retry instead`;
  return marker
    ? `${what}. onIgnoredRewrite is "deny": its over-ceiling dispatches are denied with a retry instead of corrected (delete ${file} to correct again)`
    : `${what}. onIgnoredRewrite is "deny", but its marker (${file}) was removed: corrected again until a correction is seen ignored`;
}

export function checkEnforcement(env: Env, cwd: string): Check[] {
  const deny = loadPolicy(env, cwd).policy.onIgnoredRewrite === 'deny';
  const counts = ledgerCounts(env);
  const out: Check[] = [];
  for (const harness of HarnessSchema.options) {
    const c = counts?.get(harness);
    const marker = readRewriteMarker(env, harness);
    const file = rewriteMarkerPath(env, harness);
    const data = {
      counts: c ?? null,
      marker,
      markerFile: marker ? file : null,
      onIgnoredRewrite: deny ? 'deny' : 'correct',
    };
    const name = `${harness} rewrites`;
    if (marker || (c && c.ignored > 0)) {
      out.push({
        section: 'enforcement',
        name,
        status: 'warn',
        detail: ignoredDetail(harness, c, marker, deny, file),
        data,
      });
    } else if (c && c.honoured > 0) {
      const rest = c['not-checked'] + c.pending;
      out.push({
        section: 'enforcement',
        name,
        status: 'ok',
        detail: `${c.honoured} checked correction(s), all honoured${rest ? ` (${rest} not checked or waiting for the child)` : ''}`,
        data,
      });
    } else if (c) {
      out.push({
        section: 'enforcement',
        name,
        status: 'info',
        detail: `${c['not-checked'] + c.pending} correction(s), none checked yet (no served model known, or the child has not finished)`,
        data,
      });
    }
  }
  if (out.length === 0) {
    out.push({
      section: 'enforcement',
      name: 'rewrites',
      status: 'info',
      detail: counts
        ? 'no corrections recorded yet'
        : 'no ledger with enforcement data yet (the next tiergate report or session end fills it)',
    });
  }
  return out;
}
