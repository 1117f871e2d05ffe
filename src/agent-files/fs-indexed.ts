/**
 * The agent lookup's file operations in a command hook, through the harness's agent index (agent-index.ts): a folder
 * is listed and a head parsed only when its identity changed since a hook kept them. Links in a folder are resolved at
 * every listing (a link's target can change without its folder changing), as fs-node.ts resolves them.
 */
import type { AgentIndex } from './agent-index.js';
import { linkKind, nodeAgentFs } from './fs-node.js';
import { MAX_DIR_ENTRIES, type AgentFs, type AgentFsEntry } from './fs.js';
import { readTextHead } from '../io/read-capped.js';

export function indexedAgentFs(index: AgentIndex): AgentFs {
  return {
    async list(dir) {
      const listed = index.list(dir, MAX_DIR_ENTRIES);
      if (listed === null) return null;
      return listed.map(
        ([name, k]): AgentFsEntry => ({
          name,
          kind: k === 'f' ? 'file' : k === 'd' ? 'dir' : k === 'l' ? linkKind(dir, name) : 'other',
        }),
      );
    },
    head: nodeAgentFs.head,
    exists: nodeAgentFs.exists,
    async parsed(path, parser) {
      return index.value(path, parser.tag, () => parser.parse(readTextHead(path, parser.maxBytes)));
    },
  };
}
