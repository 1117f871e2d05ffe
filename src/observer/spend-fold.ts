/**
 * A fold's writes, in the order the readers rely on (spend-held.ts): the summary with the held lines and the journal
 * taken in, under the next generation; then the held file emptied; then the journal entries it took dropped. A fold
 * that stops between them leaves lines of an older generation, which no reader counts again. Under the spend lock:
 * a completion's merge (spend-record.ts) and a dispatch whose fold is due (spend-reserve.ts).
 */
import { emptyFile, writeFileAtomic } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { nextGen, type HeldRead } from './spend-held.js';
import { summaryText } from './spend-digest.js';
import { dropJournal } from './spend-journal.js';
import { heldPath } from './spend-read.js';
import { spendPath, type SpendFile } from './spend-summary.js';

/**
 * Writes `file` (the summary with `held` and the journal already in it) as the new summary, past every generation of
 * `before` (the summary it was read from) and `held`; returns it as written.
 */
export function writeFold(
  env: Env,
  file: SpendFile,
  before: SpendFile | null,
  held: HeldRead,
  journalNames: string[],
): SpendFile {
  // A dispatch's view (spend-digest.ts) holds one session and no completions: written, it would lose the rest.
  if (file.basis) throw new Error('a view of the spend summary is not a summary');
  const written = { ...file, heldGen: nextGen(before, held) };
  // A cache the ledger rebuilds: no fsync, on the dispatch path or off it. Its digest at its head (spend-digest.ts).
  writeFileAtomic(spendPath(env), summaryText(written), { durable: false });
  if (held.count > 0) emptyFile(heldPath(env));
  dropJournal(env, journalNames);
  return written;
}
