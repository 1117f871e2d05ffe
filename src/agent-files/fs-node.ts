/**
 * The agent lookup's file operations in Node (the command hook and the CLI). Reads go through the shared bounded reader
 * (src/io/read-capped.ts: a regular file only, opened without blocking, so a FIFO or device named like an agent file
 * is refused, never waited on); folder listings stop after MAX_DIR_ENTRIES + 1 entries.
 */
import { existsSync, opendirSync, statSync, type Dirent } from 'node:fs';
import { readTextHead } from '../io/read-capped.js';
import { MAX_DIR_ENTRIES, type AgentFs, type AgentFsEntry } from './fs.js';

function kind(dir: string, e: Dirent): AgentFsEntry['kind'] {
  if (e.isFile()) return 'file';
  if (e.isDirectory()) return 'dir';
  return e.isSymbolicLink() ? linkKind(dir, e.name) : 'other';
}

/** What a link in an agent folder points at: Claude Code follows links there (2.1.328 source); a dangling one is nothing. */
export function linkKind(dir: string, name: string): AgentFsEntry['kind'] {
  const st = statSync(`${dir}/${name}`, { throwIfNoEntry: false });
  return st?.isFile() ? 'file' : st?.isDirectory() ? 'dir' : 'other';
}

export const nodeAgentFs: AgentFs = {
  async list(dir) {
    let d;
    try {
      d = opendirSync(dir);
    } catch {
      return null;
    }
    const out: AgentFsEntry[] = [];
    try {
      for (let e = d.readSync(); e !== null && out.length <= MAX_DIR_ENTRIES; e = d.readSync())
        out.push({ name: e.name, kind: kind(dir, e) });
    } catch {
      return null;
    } finally {
      d.closeSync();
    }
    return out;
  },
  async head(path, maxBytes) {
    return readTextHead(path, maxBytes);
  },
  async exists(path) {
    return existsSync(path);
  },
};
