/**
 * The completions not yet merged into the spend summary: one small file per completion in `spend.d/` beside it,
 * written without the lock (an atomic create, so no completion ever waits for, or is lost to, a busy lock) and merged
 * into spend.json by whoever next holds the lock. Every reader counts merged and not-yet-merged alike: it lists the
 * journal first, then reads the summary, and folds the entries in by their ledger key (countCompletion), so an entry
 * merged between the two reads still counts once.
 *
 * On the dispatch path: file calls only. Nothing here follows a link (the directory is opened O_NOFOLLOW, each entry read
 * O_NOFOLLOW).
 */
import { readdirSync } from 'node:fs';
import { ensurePrivateDir, existingPrivateDir, removeFile, writeFileAtomic } from '../io/files.js';
import { paths, type Env, joinPath } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';
import { isRecentEntry, SPEND_JOURNAL_DIR, type RecentEntry } from './spend-summary.js';

/** An entry is a key, a session, a time, a cost and a model: far below this. */
export const JOURNAL_ENTRY_MAX_BYTES = 4096;
/**
 * Entries a reader takes in one go. Every merge empties the journal, so this many unmerged means the lock has been
 * unavailable for thousands of completions: the reader reports it (budgets then fail open, diagnosed) rather than
 * read without bound.
 */
export const JOURNAL_MAX_ENTRIES = 4096;

export const journalDir = (env: Env): string => joinPath(paths(env).data, SPEND_JOURNAL_DIR);

let written = 0;

/** Journals one completion (never waits for the lock). Throws on a write failure: the caller diagnoses it. */
export function journalCompletion(env: Env, e: RecentEntry, now = Date.now()): string {
  const dir = journalDir(env);
  ensurePrivateDir(dir);
  // Named by time first, so a merge folds a child reported twice in the order the reports came.
  const name = `${String(now).padStart(15, '0')}-${process.pid}-${written++}.json`;
  writeFileAtomic(joinPath(dir, name), JSON.stringify(e), { durable: false });
  return name;
}

export type JournalRead = {
  /** Every file name read (the entries, and any malformed one, which a merge removes). */
  names: string[];
  entries: RecentEntry[];
  error: string | null;
};

/**
 * The journal as it stands, oldest first. Absent: empty. Over JOURNAL_MAX_ENTRIES, a reader gets an error (it cannot
 * count them all within bounds); a merger (`merging`) takes the oldest JOURNAL_MAX_ENTRIES, and the next one the rest.
 */
export function readJournal(env: Env, merging = false): JournalRead {
  const dir = journalDir(env);
  let names: string[];
  try {
    if (!existingPrivateDir(dir)) return { names: [], entries: [], error: null };
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (err) {
    return { names: [], entries: [], error: `spend journal unreadable: ${(err as Error).message}` };
  }
  if (names.length > JOURNAL_MAX_ENTRIES && merging) names = names.slice(0, JOURNAL_MAX_ENTRIES);
  else if (names.length > JOURNAL_MAX_ENTRIES)
    return {
      names: [],
      entries: [],
      error: `spend journal holds ${names.length} unmerged completions (over ${JOURNAL_MAX_ENTRIES})`,
    };
  const entries: RecentEntry[] = [];
  const read: string[] = [];
  for (const name of names) {
    let text: string;
    try {
      text = readTextCapped(joinPath(dir, name), JOURNAL_ENTRY_MAX_BYTES, { follow: false });
    } catch (err) {
      // Gone: merged since the listing, so the summary read after this holds it.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      read.push(name); // a link, a FIFO, an oversized file: not ours; a merge removes it
      continue;
    }
    read.push(name);
    try {
      const v: unknown = JSON.parse(text);
      if (isRecentEntry(v)) entries.push(v);
    } catch {
      /* torn or foreign: removed by the merge */
    }
  }
  return { names: read, entries, error: null };
}

/** Removes merged entries (under the lock, after the summary holding them was written). */
export function dropJournal(env: Env, names: string[]): void {
  const dir = journalDir(env);
  for (const name of names) removeFile(joinPath(dir, name));
}
