/**
 * The file access every agent-file lookup shares (Claude Code's, Copilot CLI's, Gemini CLI's, Grok's): the few file
 * operations it needs as each runtime provides them (Node: fs-node.ts; Claude Code's hooks module: a snapshot,
 * fs-snapshot.ts), and the bounds each lookup keeps to.
 */
/** Thrown by an AgentFs whose time is up: the lookup stops and says "unknown" (never "absent", which could pick a lower definition). */
export class LookupDeadline extends Error {
  constructor() {
    super('agent lookup ran past its deadline');
    this.name = 'LookupDeadline';
  }
}

export type AgentFsEntry = { name: string; kind: 'file' | 'dir' | 'other' };

/**
 * What a lookup makes of a file's head: `tag` names the parser and its version, under which an agent index keeps the
 * result (agent-index.ts): a parser that changes what it returns takes a new tag. The result must be plain JSON.
 */
export type HeadParser<T> = { tag: string; maxBytes: number; parse(text: string): T };

/** The few file operations the lookup needs, as each runtime provides them. */
export interface AgentFs {
  /** A folder's entries (symbolic links resolved to what they point at), or null when it cannot be listed (absent…). */
  list(dir: string): Promise<AgentFsEntry[] | null>;
  /** The first `maxBytes` of a regular file as text; rejects when it is absent, not a regular file, or unreadable. */
  head(path: string, maxBytes: number): Promise<string>;
  /** Whether anything exists at the path (`.git` is a folder, or a file in a worktree). */
  exists(path: string): Promise<boolean>;
  /** `parser` run on the head, from an index when the runtime keeps one (fs-indexed.ts); rejects as `head` does. */
  parsed?<T>(path: string, parser: HeadParser<T>): Promise<T>;
}

/** A file's head as `parser` reads it: through the runtime's index when it has one, else read and parsed here. */
export async function parsedHead<T>(fs: AgentFs, path: string, parser: HeadParser<T>): Promise<T> {
  return fs.parsed ? fs.parsed(path, parser) : parser.parse(await fs.head(path, parser.maxBytes));
}

/**
 * Claude Code refuses a frontmatter over 65,536 characters from an untrusted source (2.1.328, source); a little more
 * than that is read so the closing `---` of the longest frontmatter it accepts is inside the head.
 */
export const AGENT_HEAD_BYTES = 64 * 1024 + 1024;
export const MAX_AGENT_FILES = 64;
export const MAX_DIR_ENTRIES = 512;
export const MAX_DEPTH = 4;
export const MAX_PROJECT_LEVELS = 32;
