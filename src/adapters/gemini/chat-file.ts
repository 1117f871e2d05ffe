/**
 * Gemini CLI 0.61.0's chat files (JSONL, reference/gemini-cli.md §6, seen), read from the tail, bounded:
 *  - the parent's is the hooks' `transcript_path`, `<gemini>/tmp/<project>/chats/session-<time>-<id8>.jsonl`;
 *  - a child's is `<same chats dir>/<parent session_id>/<agent id>.jsonl` (no payload names it: the agent id is the
 *    prefix of AfterTool's `recentActivity[].id`);
 *  - each model turn is a `{"type":"gemini","id","model","tokens":{input,output,cached,thoughts,tool,total}}` line,
 *    written twice (bare, then again with `toolCalls`): de-duplicated by `id`;
 *  - `model` is the id requested on the wire (the served `modelVersion` is not recorded: seen), `tokens.input` is the
 *    API's promptTokenCount (cached included), `output` excludes thoughts (total = input + output + thoughts).
 */
import { dirName, joinPath } from '../../io/paths.js';
import type { Usage } from '../../contracts/usage.js';
import { fnv1a } from '../../io/text.js';
import { readTailLines } from '../../observer/tail.js';
import { isRecord } from '../../contracts/record.js';

type Obj = Record<string, unknown>;
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Lines read here are small; a `$set` of the whole history (the session's first line can be one) is skipped unparsed. */
const MAX_PARSED_LINE = 1024 * 1024;

function parse(line: string): Obj | null {
  if (line.length > MAX_PARSED_LINE) return null;
  try {
    const v: unknown = JSON.parse(line);
    return isRecord(v) ? v : null;
  } catch {
    return null; // a line torn mid-write
  }
}

/** A `gemini` message line (top level, not one quoted inside a `$set`). */
export function geminiMessage(line: string): Obj | null {
  if (!line.includes('"gemini"')) return null;
  const rec = parse(line);
  return rec && rec.type === 'gemini' ? rec : null;
}

/**
 * `tokens` -> tiergate Usage (input without cache reads, output with reasoning). `tool` (the API's
 * toolUsePromptTokenCount) is prompt-side, so it is counted as input (inferred: always 0 in the runs seen).
 */
export function geminiUsage(tokens: unknown): Usage | null {
  if (!isRecord(tokens)) return null;
  const cached = count(tokens.cached);
  const thoughts = count(tokens.thoughts);
  return {
    input: Math.max(0, count(tokens.input) - cached) + count(tokens.tool),
    output: count(tokens.output) + thoughts,
    cacheRead: cached,
    cacheWrite5m: 0,
    cacheWrite1h: 0,
    reasoning: thoughts,
    requests: 1,
  };
}

/**
 * tiergate's id for one invoke_agent call. Gemini gives the call an id of its own only after it ran (the parent's chat
 * file, `toolCalls[].id`); BeforeTool and AfterTool carry none (seen). Both hooks see the dispatching model message
 * as the newest `gemini` line of the parent's file and the same `prompt` (a correction changes agent_name only), so
 * the message id and the prompt's hash name the call exactly for both, and for a scan of the finished file.
 */
export function dispatchCallId(messageId: string, prompt: unknown): string {
  return `${messageId}#${fnv1a(typeof prompt === 'string' ? prompt : '')}`;
}

export type ParentTurn = { model: string | null; messageId: string | null };

/** The parent's newest model message: its model (the parent's model as sent) and id. Throws what the read throws. */
export function readParentTurn(path: string, maxBytes: number): ParentTurn {
  let found: ParentTurn = { model: null, messageId: null };
  readTailLines(path, {
    maxBytes,
    chunkBytes: 64 * 1024,
    stopWhen: (line) => {
      const m = geminiMessage(line);
      if (!m) return false;
      found = { model: str(m.model), messageId: str(m.id) };
      return true;
    },
  });
  return found;
}

/** Agent ids are UUIDs (seen); anything else is not made into a path. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The child's chat file, beside the parent's: `<chats>/<parent session id>/<agent id>.jsonl`. */
export function childChatPath(parentTranscript: string, sessionId: string, agentId: string): string | null {
  if (!SAFE_ID.test(sessionId) || !SAFE_ID.test(agentId) || sessionId.includes('..') || agentId.includes('..'))
    return null;
  return joinPath(dirName(parentTranscript), sessionId, `${agentId}.jsonl`);
}

export type ChildRun = {
  /** The model of the most output among its messages (the id sent: Gemini records no served model). */
  model: string | null;
  usage: Usage | null;
  /** Distinct model messages summed. */
  messages: number;
  /** The `$set` summary line Gemini writes when the child ends (seen last in every child file). */
  finished: boolean;
  /** The cap stopped the read before the file's first line: usage may be short. */
  truncated: boolean;
  startedAt: number | null;
};

const time = (v: unknown): number | null => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : null;
};

/** Every model message of a child's chat file, from the tail, de-duplicated by id (the later copy wins). */
export function readChildRun(path: string, maxBytes: number): ChildRun {
  const { lines, truncated } = readTailLines(path, { maxBytes, chunkBytes: 64 * 1024 });
  const byId = new Map<string, { model: string | null; usage: Usage }>();
  let finished = false;
  let startedAt: number | null = null;
  for (const line of lines) {
    const m = geminiMessage(line);
    if (m) {
      const usage = geminiUsage(m.tokens);
      const id = str(m.id);
      if (usage && id) byId.set(id, { model: str(m.model), usage });
      continue;
    }
    if (line.includes('"summary"')) {
      const rec = parse(line);
      if (rec && isRecord(rec.$set) && typeof rec.$set.summary === 'string') finished = true;
    } else if (startedAt === null && line.includes('"startTime"')) {
      const rec = parse(line);
      if (rec && rec.kind === 'subagent') startedAt = time(rec.startTime);
    }
  }
  const runs = [...byId.values()];
  let usage: Usage | null = null;
  const outByModel = new Map<string, number>();
  for (const r of runs) {
    if (!usage) usage = { ...r.usage, requests: 0 };
    else {
      usage.input += r.usage.input;
      usage.output += r.usage.output;
      usage.cacheRead += r.usage.cacheRead;
      usage.reasoning += r.usage.reasoning;
    }
    usage.requests += 1;
    if (r.model) outByModel.set(r.model, (outByModel.get(r.model) ?? 0) + r.usage.output + 1);
  }
  let model: string | null = null;
  let best = -1;
  for (const [m, n] of outByModel) if (n >= best) (model = m), (best = n);
  return { model, usage, messages: runs.length, finished, truncated, startedAt };
}
