/**
 * What a command hook learnt from the agent files it read, kept for the next one: `<data dir>/<harness>-agents.json`.
 * A dispatch hook of Gemini CLI or Copilot CLI looks at every agent folder and file head on each dispatch (Gemini CLI
 * 0.61.0 registers an agent by its frontmatter `name`, the first definition in folder order winning, so any file may
 * define the named agent); reading and parsing them was most of what these hooks do beyond a bare Node start
 * (bench/README.md, "Session 15: agent files"). With the index, a hook stats each folder and file and reads and parses
 * only what changed.
 *
 * - *Keyed by path, checked by identity.* A folder's listing and a file's parsed head are used only while the path's
 *   `stat` gives the same device, inode, size, mtime and ctime as when they were read (one stat a folder, one a file).
 *   The stat is taken before the read, so a change during the read leaves an identity that no longer matches.
 * - *Racy entries are never kept.* A file changed within the same timestamp granule as its read could keep its identity
 *   (git's "racily clean" problem): what was read less than RACY_MS after its ctime is used once and not kept. A later
 *   change gets a later ctime, which no kept entry can have.
 * - *Values, not text.* A file's entry holds what its reader (`tag`) made of the head: the few fields a decision
 *   needs. A tag names the reader and its version: a reader that changes what it returns takes a new tag, and an entry
 *   of another tag is read again.
 * - *Fail open.* An index that is missing, a link, not a regular file, too large or not the format is as if empty: the
 *   files are read as without it (one diagnostic for anything but missing) and the index is written anew.
 * - *Written after the answer* (HookContext.afterAnswer), only when something changed, through src/io/files.ts:
 *   atomically (a link or anything else at the name is replaced, never written through), 0600.
 */
import { opendirSync, statSync, type Stats } from 'node:fs';
import type { Env } from '../contracts/env.js';
import type { HookContext } from '../contracts/hook.js';
import { isRecord } from '../contracts/record.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { writeFileAtomic } from '../io/files.js';
import { joinPath, paths } from '../io/paths.js';
import { readTextCapped } from '../io/read-capped.js';

export const INDEX_FORMAT = 'tiergate-agent-index/1';
/** A file changed less than this before it was read may have changed again within its timestamp granule: not kept. */
export const RACY_MS = 5000;
/** The index is read up to this size; a larger one is as if absent (and replaced by a smaller one). */
const MAX_INDEX_BYTES = 1024 * 1024;
/** Entries kept at most; past this, those this hook did not use go first. */
const MAX_FILES = 1024;
const MAX_DIRS = 256;
/** A folder with more entries than this is listed each time (never kept). */
const MAX_KEPT_LISTING = 512;

/** device, inode, size, mtime (ms), ctime (ms). */
type Identity = [number, number, number, number, number];
/** A directory entry as readdir typed it: file, dir, link, other. */
export type ListedKind = 'f' | 'd' | 'l' | 'o';
export type Listed = [name: string, kind: ListedKind];
type DirEntry = [...Identity, Listed[]];
type FileEntry = [...Identity, tag: string, value: unknown];

const identity = (st: Stats): Identity => [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];

function sameIdentity(entry: readonly unknown[], st: Stats): boolean {
  return (
    entry[0] === st.dev &&
    entry[1] === st.ino &&
    entry[2] === st.size &&
    entry[3] === st.mtimeMs &&
    entry[4] === st.ctimeMs
  );
}

const KINDS = new Set<unknown>(['f', 'd', 'l', 'o']);
const isListing = (v: unknown): v is Listed[] =>
  Array.isArray(v) && v.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && KINDS.has(e[1]));

function kindOfEntry(e: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): ListedKind {
  return e.isFile() ? 'f' : e.isDirectory() ? 'd' : e.isSymbolicLink() ? 'l' : 'o';
}

/** An index as stored; `replace`: what was there is no index (garbage, a link), to be replaced at the next save. */
type Stored = { dirs?: Record<string, unknown>; files?: Record<string, unknown>; replace?: boolean };

/**
 * The index of one harness's agent files for one hook process. Its file is read on first need (a folder or file that
 * exists), so a dispatch whose agent folders are all absent never reads it.
 */
export class AgentIndex {
  private entries: { dirs: Map<string, unknown>; files: Map<string, unknown> } | null = null;
  /** Paths this hook looked up (kept first when the index is over its bounds). */
  private readonly used = new Set<string>();
  private dirty = false;

  constructor(
    /** Where the index is written; null: kept in memory only. */
    readonly file: string | null,
    private readonly stored: Stored | (() => Stored) = {},
    private readonly now: () => number = Date.now,
  ) {}

  private get dirs(): Map<string, unknown> {
    return this.load().dirs;
  }

  private get files(): Map<string, unknown> {
    return this.load().files;
  }

  private load() {
    if (this.entries) return this.entries;
    const s = typeof this.stored === 'function' ? this.stored() : this.stored;
    this.entries = { dirs: new Map(Object.entries(s.dirs ?? {})), files: new Map(Object.entries(s.files ?? {})) };
    if (s.replace) this.dirty = true;
    return this.entries;
  }

  /** Drops a path's entry when the index was read (an absent path never makes a hook read it just for that). */
  private drop(into: 'dirs' | 'files', key: string): void {
    if (this.entries?.[into].delete(key)) this.dirty = true;
  }

  /**
   * A folder's entries (names and readdir's types, links not followed), at most `max` + 1 of them, or null when it
   * cannot be listed (absent, not a folder, unreadable). One stat; the listing is read only when the folder changed.
   */
  list(dir: string, max: number): Listed[] | null {
    const st = statSync(dir, { throwIfNoEntry: false });
    if (!st?.isDirectory()) {
      this.drop('dirs', dir);
      return null;
    }
    this.used.add(dir);
    const kept = this.dirs.get(dir);
    if (Array.isArray(kept) && kept.length === 6 && sameIdentity(kept, st) && isListing(kept[5]))
      return (kept[5] as Listed[]).slice(0, max + 1);
    let out: Listed[];
    try {
      const d = opendirSync(dir);
      out = [];
      try {
        for (let e = d.readSync(); e !== null && out.length <= max; e = d.readSync())
          out.push([e.name, kindOfEntry(e)]);
      } finally {
        d.closeSync();
      }
    } catch {
      return null;
    }
    if (out.length <= Math.min(max, MAX_KEPT_LISTING)) this.keep(this.dirs, dir, [...identity(st), out], st);
    else this.drop('dirs', dir);
    return out;
  }

  /**
   * What `read` makes of the regular file at `path` (links followed, as the harnesses follow them): kept under `tag`
   * while the file keeps its identity. `read` may throw (unreadable, too large): nothing is kept then, and the error is
   * the caller's as without the index. Anything but a regular file is passed to `read` unkept, which refuses it; nothing
   * at all is `absent` when the caller gives one (no open, no error built: a missing settings file is the usual case).
   */
  value<T>(path: string, tag: string, read: () => T, absent?: { value: T }): T {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st?.isFile()) {
      this.drop('files', path);
      return !st && absent ? absent.value : read();
    }
    this.used.add(path);
    const kept = this.files.get(path);
    if (Array.isArray(kept) && kept.length === 7 && kept[5] === tag && sameIdentity(kept, st)) return kept[6] as T;
    const v = read();
    this.keep(this.files, path, [...identity(st), tag, v], st);
    return v;
  }

  private keep(into: Map<string, unknown>, key: string, entry: DirEntry | FileEntry, st: Stats): void {
    // Changed within RACY_MS of this read (or stamped in the future): a change in the same granule could be missed.
    if (st.ctimeMs > this.now() - RACY_MS) {
      if (into.delete(key)) this.dirty = true;
      return;
    }
    into.set(key, entry);
    this.dirty = true;
  }

  /** Whether the index differs from the file it was read from (an index never read is unchanged). */
  get changed(): boolean {
    return this.dirty;
  }

  /** The index as written: this hook's entries first, then others' up to the bounds. */
  serialize(): string {
    const bounded = (m: Map<string, unknown>, max: number) => {
      const keys = [...m.keys()];
      const ordered = [...keys.filter((k) => this.used.has(k)), ...keys.filter((k) => !this.used.has(k))];
      return Object.fromEntries(ordered.slice(0, max).map((k) => [k, m.get(k)]));
    };
    return JSON.stringify({
      format: INDEX_FORMAT,
      dirs: bounded(this.dirs, MAX_DIRS),
      files: bounded(this.files, MAX_FILES),
    });
  }

  /** Writes the index when it changed. Never throws: a failure costs the next hook its reads, not this one its answer. */
  save(env: Env): void {
    if (!this.dirty || this.file === null) return;
    try {
      writeFileAtomic(this.file, this.serialize(), { durable: false });
      this.dirty = false;
    } catch (err) {
      diagnose('warn', 'agent-index', `not saved: ${errorText(err)}`, { path: this.file }, env);
    }
  }
}

/** `<data dir>/<harness>-agents.json`. */
export const agentIndexPath = (env: Env, harness: string): string =>
  joinPath(paths(env).data, `${harness}-agents.json`);

/**
 * The harness's index as the last hook left it; empty when there is none or it cannot be used (a link, not a regular
 * file, too large, not JSON, not the format: one diagnostic, and the next save replaces it).
 */
export function openAgentIndex(env: Env, harness: string, now: () => number = Date.now): AgentIndex {
  const file = agentIndexPath(env, harness);
  return new AgentIndex(file, () => readIndex(file, env), now);
}

/**
 * The harness's index for a command hook's agent lookup, saved once the hook's answer is out (HookContext.afterAnswer:
 * the harness does not wait for the write); without a runner to run that, it is not saved.
 */
export function hookAgentIndex(
  env: Env,
  harness: string,
  ctx: Pick<HookContext, 'afterAnswer'> | undefined,
): AgentIndex {
  const index = openAgentIndex(env, harness);
  ctx?.afterAnswer?.(() => index.save(env));
  return index;
}

function readIndex(file: string, env: Env): Stored {
  let text: string;
  try {
    text = readTextCapped(file, MAX_INDEX_BYTES, { follow: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    diagnose('warn', 'agent-index', `not used: ${errorText(err)}`, { path: file }, env);
    return { replace: true };
  }
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    stored = null;
  }
  if (!isRecord(stored) || stored.format !== INDEX_FORMAT || !isRecord(stored.dirs) || !isRecord(stored.files)) {
    diagnose('warn', 'agent-index', 'not used: not an agent index (it is replaced)', { path: file }, env);
    return { replace: true };
  }
  return { dirs: stored.dirs, files: stored.files };
}
