/**
 * The dispatch memo: what a command hook's runtime came to (the merged policy, its diagnostics, and every price
 * resolution it made), kept for the next hook process, which then reads one small file instead of the policy files,
 * the refreshed catalogs and the bundled snapshot, and resolves nothing it resolved before (~1 ms of a hook with a used
 * data dir; bench/README.md, "Session 5").
 *
 * A stale memo would mis-decide without a word, so it is keyed by everything its content was computed from: the build
 * (a rebuilt bundle may resolve differently), the paths the environment points at, and the identity (size, mtime,
 * ctime, inode) of each input file: both policy files, every catalog file in the price cache directory, the prices the
 * harnesses declared and the bundled snapshot. Any difference, and the runtime is loaded from the files as without a
 * memo. A file changed twice within one timestamp tick could keep its identity, so a memo is only written when every
 * input is older than SETTLE_MS (git's "racy clean" rule): a file being edited is read afresh until it settles.
 *
 * One file per harness and working directory (the project policy file is per directory), written atomically; at most
 * MAX_MEMO_FILES are kept. In-process hosts (OpenCode, pi) keep their runtime in memory instead (context.ts).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import type { Policy } from '../contracts/config.js';
import type { Resolution } from '../contracts/prices.js';
import type { Harness } from '../contracts/harness.js';
import { PROJECT_CONFIG_FILE } from '../config/load.js';
import { isRecord } from '../contracts/record.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { ensurePrivateDir, existingPrivateDir, pruneTempFiles, removeFile, writeFileAtomic } from '../io/files.js';
import { childPath, paths, type Env } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';
import { fnv1a } from '../io/text.js';
import { DECLARED_FILE } from '../prices/declared.js';
import { CACHE_SUFFIX, findSnapshotPath } from '../prices/load.js';
import { resolutionKey, type PriceLookup } from '../prices/lookup.js';
import { MAX_NAME_LENGTH } from '../prices/resolve.js';

export const MEMO_FORMAT = 'tiergate-dispatch-memo/1';
/** An input changed less than this long ago may change again unseen within its timestamp's tick: no memo yet. */
export const SETTLE_MS = 3000;
export const MAX_MEMO_FILES = 64;
/** A session resolves a handful of names (parent, child, tier models); more than this is not a dispatch's working set. */
export const MAX_MEMO_RESOLUTIONS = 256;
export const MAX_MEMO_BYTES = 512 * 1024;

export type MemoContent = {
  policy: Policy;
  policyDiagnostics: string[];
  catalogDate: string;
  catalogVersion: string;
  resolutions: Record<string, Resolution>;
};

type MemoFile = MemoContent & { format: string; key: string };

export type MemoInputs = { key: string; settled: boolean; path: string };

export const memoDir = (env: Env): string => paths(env).memoDir;

/**
 * The key of everything a runtime is computed from, read by stat only. `now` decides which inputs have settled.
 * A file absent is part of the key too: creating a project policy file changes it.
 */
export function memoInputs(env: Env, harness: Harness, cwd: string | null, buildId: string, now: number): MemoInputs {
  const p = paths(env);
  let settled = true;
  const parts: string[] = [MEMO_FORMAT, buildId, p.config, p.priceCacheDir];
  const add = (label: string, path: string | null) => {
    const st = path === null ? undefined : statSync(path, { throwIfNoEntry: false });
    if (st && st.ctimeMs > now - SETTLE_MS) settled = false;
    parts.push(`${label}=${st ? `${path}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : 'absent'}`);
  };
  add('user', p.config);
  add('project', cwd === null ? null : childPath(cwd, PROJECT_CONFIG_FILE));
  add('snapshot', findSnapshotPath());
  if (existsSync(p.priceCacheDir)) {
    const names = readdirSync(p.priceCacheDir)
      .filter((n) => n.endsWith(CACHE_SUFFIX) || n === DECLARED_FILE)
      .sort();
    for (const name of names) add('prices', childPath(p.priceCacheDir, name));
  }
  const key = parts.join('\n');
  return { key, settled, path: childPath(memoDir(env), `${harness}-${fnv1a(cwd ?? '')}.json`) };
}

/** A memo file's text -> its content; throws when it is not a whole memo (the key is the caller's to compare). */
export function parseMemo(text: string): MemoFile {
  const m = JSON.parse(text) as MemoFile;
  if (!isRecord(m) || m.format !== MEMO_FORMAT) throw new Error('not a dispatch memo');
  if (
    typeof m.key !== 'string' ||
    !isRecord(m.policy) ||
    !Array.isArray(m.policyDiagnostics) ||
    !isRecord(m.resolutions) ||
    typeof m.catalogDate !== 'string' ||
    typeof m.catalogVersion !== 'string'
  )
    throw new Error('incomplete');
  return m;
}

/** The memo for exactly these inputs, or null (none, another key, or damaged: diagnosed, and replaced by the next write). */
export function readMemo(inputs: MemoInputs, env: Env): MemoContent | null {
  let text: string;
  try {
    // Inside the data dir: neither the directory nor the file is read through a link. No directory yet: no memo, asked
    // by lstat rather than by a failed open's errno exception.
    if (!existingPrivateDir(memoDir(env))) return null;
    text = readTextCapped(inputs.path, MAX_MEMO_BYTES, { follow: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      diagnose('warn', 'dispatch-memo', `unreadable, ignored: ${errorText(err)}`, { path: inputs.path }, env);
    return null;
  }
  try {
    const m = parseMemo(text);
    return m.key === inputs.key ? m : null;
  } catch (err) {
    diagnose('warn', 'dispatch-memo', `damaged, ignored: ${errorText(err)}`, { path: inputs.path }, env);
    return null;
  }
}

/** Writes the memo (not durably: losing it costs one slower hook) and keeps the directory to MAX_MEMO_FILES. */
export function writeMemo(inputs: MemoInputs, content: MemoContent, env: Env, now = Date.now()): void {
  const file: MemoFile = { format: MEMO_FORMAT, key: inputs.key, ...content };
  // A link in the directory's place is refused: the prune below would delete its target's JSON files.
  ensurePrivateDir(memoDir(env));
  writeFileAtomic(inputs.path, JSON.stringify(file), { durable: false });
  pruneMemos(memoDir(env), MAX_MEMO_FILES, now);
}

/**
 * Oldest first out, down to half the limit, once the directory holds more than `limit` memos; and any temporary file
 * a killed writer left behind (files.ts pruneTempFiles, shared with the drain's tidying of the other directories).
 */
export function pruneMemos(dir: string, limit: number, now = Date.now()): void {
  pruneTempFiles(dir, now);
  const names = readdirSync(dir);
  const age = (n: string) => statSync(childPath(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const memos = names.filter((n) => n.endsWith('.json'));
  if (memos.length <= limit) return;
  const aged = memos.map((n) => ({ path: childPath(dir, n), at: age(n) })).sort((a, b) => a.at - b.at);
  for (const f of aged.slice(0, memos.length - Math.floor(limit / 2))) removeFile(f.path);
}

/**
 * A price lookup answering from the memo's resolutions; a name it does not hold is resolved by the full lookup (built
 * on first need from the files) and marked new, so the caller writes the memo again.
 */
export function memoLookup(content: MemoContent, full: () => PriceLookup): PriceLookup & { added: () => number } {
  let lookup: PriceLookup | null = null;
  let added = 0;
  let held = Object.keys(content.resolutions).length;
  return {
    resolve(name: string, harness: Harness): Resolution {
      const key = resolutionKey(harness, name);
      if (Object.hasOwn(content.resolutions, key)) return content.resolutions[key]!;
      lookup ??= full();
      const r = lookup.resolve(name, harness);
      // A name past MAX_NAME_LENGTH is unknown without any lookup work, and not kept: the memo stays small (<= ~250 KB).
      if (name.length <= MAX_NAME_LENGTH && held < MAX_MEMO_RESOLUTIONS) {
        content.resolutions[key] = r;
        held++;
        added++;
      }
      return r;
    },
    catalogDate: content.catalogDate,
    catalogVersion: content.catalogVersion,
    added: () => added,
  };
}
