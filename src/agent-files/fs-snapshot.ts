/**
 * An AgentFs that answers from what an earlier pass read. The hooks module needs it: each `$.fs` call is a hop to
 * Claude Code's main thread (≈ 10–20 ms each measured on 2.1.328 on a loaded machine, and serialised when several
 * Agent calls spawn at once), so a lookup made at the dispatch would hold it for hundreds of ms. Instead the module
 * reads the session's agent folders once (at session start, and again after a parent turn when the copy is old) and
 * looks agents up in this copy; only what the copy lacks (a plugin's agent folder) is read at the dispatch.
 */
import { LookupDeadline, type AgentFs, type AgentFsEntry } from './fs.js';

type Head = { text: string } | { error: string };

export class AgentFsSnapshot {
  private readonly lists = new Map<string, AgentFsEntry[] | null>();
  private readonly heads = new Map<string, Head>();
  private readonly exist = new Map<string, boolean>();

  /** Epoch ms when the copy was started. */
  constructor(readonly at: number) {}

  /** The copy, falling back to `inner` for what it lacks (and keeping what that read). */
  view(inner: AgentFs): AgentFs {
    return {
      list: async (dir) => {
        if (this.lists.has(dir)) return this.lists.get(dir)!;
        const v = await inner.list(dir);
        this.lists.set(dir, v);
        return v;
      },
      head: async (path, maxBytes) => {
        const key = `${maxBytes}\0${path}`;
        let h = this.heads.get(key);
        if (!h) {
          try {
            h = { text: await inner.head(path, maxBytes) };
          } catch (err) {
            // Running out of time says nothing about the file: not kept.
            if (err instanceof LookupDeadline) throw err;
            h = { error: (err as Error)?.message ?? String(err) };
          }
          this.heads.set(key, h);
        }
        if ('error' in h) throw new Error(h.error);
        return h.text;
      },
      exists: async (path) => {
        if (this.exist.has(path)) return this.exist.get(path)!;
        const v = await inner.exists(path);
        this.exist.set(path, v);
        return v;
      },
    };
  }

  /** How many answers the copy holds (for tests and the size bound). */
  get size(): number {
    return this.lists.size + this.heads.size + this.exist.size;
  }
}
