/**
 * The effective file, `<data>/effective.json`: the policy (built-in defaults + the user file, validated) and the catalog
 * layers under the policy's price overrides (refreshed catalogs, the bundled snapshot, harness-declared prices), as
 * one pre-validated file. Written by what changes an input (policy-load.ts: the price refresh, `tiergate config check`
 * and `install`, a harness declaring prices) and by a hook that found it missing, damaged or stale; a dispatch hook
 * reads it in one bounded read and checks only its envelope (no zod, no catalog or policy file).
 *
 * Stale is decided by stat: the file holds the identity (path, size, mtime, ctime, inode) each input had before the
 * writer read it: the user policy file (edited by hand), the bundled snapshot and the slow-path bundle beside it (an
 * upgrade or a rebuild), and the price cache directory (every catalog or declared-price write renames a file into it,
 * which changes the directory; so does a catalog placed there by hand). A project file is never in it: its presence is
 * asked on every dispatch and, when present, it is read and applied over the user's policy (config/runtime.ts).
 *
 * Layout: one JSON line (format, inputs, policy, diagnostics, the length of each layer and of each layer's key table),
 * then each layer's text in catalog-lines layout (prices/catalog-lines.ts), so a dispatch parses only the rows it looks
 * up, then each layer's key table (catalog-lines.ts keyTable; empty for a layer in another layout), so a lookup that
 * misses searches a few KB, not the layer.
 */
import { lstatSync, statSync, type Stats } from 'node:fs';
import type { Policy } from '../contracts/config.js';
import type { Catalog } from '../contracts/prices.js';
import { isRecord } from '../contracts/record.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { paths, type Env, dirName, joinPath } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';
import { readCatalogLines } from '../prices/catalog-lines.js';
import { findSnapshotPath } from '../prices/snapshot-path.js';

export const EFFECTIVE_FORMAT = 'tiergate-effective/1';
export const EFFECTIVE_FILE = 'effective.json';
/** Several refreshed catalogs (each capped at 8 MiB by prices/load.ts) and the snapshot; anything larger is not ours. */
export const MAX_EFFECTIVE_BYTES = 32 * 1024 * 1024;
export const PROJECT_CONFIG_FILE = '.tiergate.json';
/** The slow path's own bundle (scripts/build.mjs), beside the hook bundles in dist/. */
export const POLICY_LOAD_BUNDLE = 'policy-load.cjs';

/** Each input's `<path>|<identity>`, by name. */
export type Inputs = Record<'user' | 'snapshot' | 'code' | 'prices', string>;

export type Effective = { inputs: Inputs; policy: Policy; diagnostics: string[]; layers: Catalog[] };

export const effectivePath = (env: Env): string => joinPath(paths(env).data, EFFECTIVE_FILE);

const identity = (path: string | null, st: Stats | undefined): string =>
  `${path}|${st ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : 'absent'}`;

/** A path under a regular file (ENOTDIR) is as absent as one that is not there. */
function at(path: string | null, stat: typeof statSync): Stats | undefined {
  try {
    return path ? stat(path, { throwIfNoEntry: false }) : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** What the inputs are now, by stat only. A writer takes this before it reads them, so a change after is seen. */
export function currentInputs(env: Env): Inputs {
  const p = paths(env);
  const snapshot = findSnapshotPath();
  const code = snapshot && joinPath(dirName(dirName(snapshot)), 'dist', POLICY_LOAD_BUNDLE);
  return {
    user: identity(p.config, at(p.config, statSync)),
    snapshot: identity(snapshot, at(snapshot, statSync)),
    code: identity(code, at(code, statSync)),
    // Inside the data dir: a link there is its own identity, never followed.
    prices: identity(p.priceCacheDir, at(p.priceCacheDir, lstatSync)),
  };
}

export const sameInputs = (a: Inputs, b: Inputs): boolean =>
  a.user === b.user && a.snapshot === b.snapshot && a.code === b.code && a.prices === b.prices;

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The file's text -> its content; throws when it is not a whole effective file. Envelope checks only: no zod. */
export function parseEffective(text: string): Effective {
  const nl = text.indexOf('\n');
  const h: unknown = JSON.parse(nl < 0 ? text : text.slice(0, nl));
  if (!isRecord(h) || h.format !== EFFECTIVE_FORMAT) throw new Error('not an effective file');
  const { inputs, policy, diagnostics, layers, keys } = h;
  if (
    !isRecord(inputs) ||
    !['user', 'snapshot', 'code', 'prices'].every((k) => typeof inputs[k] === 'string') ||
    !isRecord(policy) ||
    typeof policy.mode !== 'string' ||
    !strings(diagnostics) ||
    !Array.isArray(layers) ||
    !layers.every((n) => Number.isSafeInteger(n) && n > 0) ||
    (keys !== undefined &&
      (!Array.isArray(keys) || keys.length !== layers.length || !keys.every((n) => Number.isSafeInteger(n) && n >= 0)))
  )
    throw new Error('incomplete header');
  // The layers' key tables follow the layers (a file without them, from before session 17, is read by search).
  let tables = nl + 1 + (layers as number[]).reduce((sum, n) => sum + n, 0);
  const catalogs: Catalog[] = [];
  let at = nl + 1;
  for (const [i, n] of (layers as number[]).entries()) {
    const t = text.slice(at, (at += n));
    const k = keys ? (keys as number[])[i]! : 0;
    const table = k > 0 ? text.slice(tables, (tables += k)) : undefined;
    const c = readCatalogLines(t, undefined, table) ?? (JSON.parse(t) as Catalog);
    if (!isRecord(c) || typeof c.version !== 'string' || !isRecord(c.models) || !isRecord(c.aliases))
      throw new Error('damaged catalog layer');
    catalogs.push(c);
  }
  if (keys) at = tables;
  if (at !== text.length) throw new Error(at > text.length ? 'truncated' : 'trailing bytes');
  return { inputs: inputs as Inputs, policy: policy as Policy, diagnostics, layers: catalogs };
}

/**
 * The effective file, if whole and made from exactly `inputs`; null when absent, stale, or damaged (diagnosed unless
 * `quiet`: a read-back after the slow path's own rewrite, whose failure that path has already said).
 */
export function readEffective(env: Env, inputs: Inputs, quiet = false): Effective | null {
  const path = effectivePath(env);
  let text: string;
  try {
    // Inside the data dir: a link in its place is refused (and replaced by the rewrite), never read through.
    text = readTextCapped(path, MAX_EFFECTIVE_BYTES, { follow: false });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!quiet && code !== 'ENOENT' && code !== 'ENOTDIR')
      diagnose('warn', 'effective', `unreadable, rebuilt from the files: ${errorText(err)}`, { path }, env);
    return null;
  }
  try {
    const e = parseEffective(text);
    return sameInputs(e.inputs, inputs) ? e : null;
  } catch (err) {
    // Never JSON.parse's own message: it quotes the text (a policy may hold a team URL).
    const why = err instanceof SyntaxError ? 'not valid JSON' : errorText(err);
    if (!quiet) diagnose('warn', 'effective', `damaged, rebuilt from the files: ${why}`, { path }, env);
    return null;
  }
}
