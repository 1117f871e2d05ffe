/**
 * The parent's model at a Claude Code PreToolUse: no command-hook payload carries it (2.1.328, reference
 * claude-code.md §4), so it is read from the last `assistant` record of the parent transcript, bounded.
 */
import { diagnose, errorText } from '../../io/diagnostics.js';
import { RefusedFile } from '../../io/read-capped.js';
import { isRecord } from '../../contracts/record.js';
import { readJsonTail } from '../../observer/json-lines.js';

type AssistantRecord = { model: string; messageId: string | null; toolUseIds: string[] };

/** A parsed tail line as an assistant record (a record torn mid-write parses to undefined: none). */
function assistantRecord(rec: unknown): AssistantRecord | undefined {
  // api-request-blob lines quote whole conversations: only a top-level assistant record counts.
  if (!isRecord(rec) || rec.type !== 'assistant') return undefined;
  const msg = rec.message as Record<string, unknown> | undefined;
  const model = msg?.model;
  // Claude Code writes "<synthetic>" assistant records for local errors; they name no model that served anything.
  if (typeof model !== 'string' || model === '' || model.startsWith('<')) return undefined;
  const content = Array.isArray(msg?.content) ? (msg!.content as Array<Record<string, unknown>>) : [];
  return {
    model,
    messageId: typeof msg?.id === 'string' ? msg.id : null,
    toolUseIds: content
      .filter((c) => c && c.type === 'tool_use' && typeof c.id === 'string')
      .map((c) => c.id as string),
  };
}

export type ParentModelRead = {
  model: string | null;
  source: 'transcript-tail' | 'transcript-tail-previous-turn' | null;
};

/**
 * One pass over the tail: the newest assistant message (all records sharing its message id). `current` is true when
 * that message holds the tool_use being dispatched.
 */
export function scanParentModel(
  path: string,
  toolUseId: string | null,
  maxBytes: number,
): { model: string | null; current: boolean; refused?: true } {
  let newestId: string | null | undefined;
  let model: string | null = null;
  let current = false;
  try {
    readJsonTail(path, { maxBytes, chunkBytes: 64 * 1024, keep: (line) => line.includes('"assistant"') }, (value) => {
      const a = assistantRecord(value);
      if (!a) return false;
      if (newestId === undefined) {
        newestId = a.messageId;
        model = a.model;
      } else if (a.messageId !== newestId || a.messageId === null) {
        return true;
      }
      if (toolUseId !== null && a.toolUseIds.includes(toolUseId)) current = true;
      return current;
    });
  } catch (err) {
    // Missing or unreadable transcript (SessionStart's does not exist yet): the parent is unknown. A FIFO, device or
    // directory in its place is refused at once (read-capped.ts), said in the log, and not waited for again.
    if (err instanceof RefusedFile) {
      diagnose('warn', 'claude:parent-model', `transcript ${errorText(err)}`, { path });
      return { model, current, refused: true };
    }
  }
  return { model, current };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The parent's model at PreToolUse. On 2.1.328 the assistant line holding the dispatching tool_use is sometimes
 * written ~50 ms after the hook starts (reference §6.1), so re-read for a bounded time; when it never comes, the
 * previous turn's model stands in (recorded as such), else unknown.
 */
export async function readParentModel(
  path: string | null,
  toolUseId: string | null,
  opts: { maxBytes: number; waitMs: number; pollMs?: number },
): Promise<ParentModelRead> {
  if (!path) return { model: null, source: null };
  const deadline = Date.now() + opts.waitMs;
  let previous: string | null = null;
  for (;;) {
    const r = scanParentModel(path, toolUseId, opts.maxBytes);
    if (r.current && r.model) return { model: r.model, source: 'transcript-tail' };
    if (r.model) previous = r.model;
    if (r.refused || toolUseId === null || Date.now() + (opts.pollMs ?? 25) > deadline) break;
    await sleep(opts.pollMs ?? 25);
  }
  return previous ? { model: previous, source: 'transcript-tail-previous-turn' } : { model: null, source: null };
}
