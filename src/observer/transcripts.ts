/**
 * One small interface over per-harness transcript parsing (src/adapters/<harness>/transcript.ts), used by scan
 * (backfill) and by the drainer's late-flush reconciliation. Parsers read forward in one streaming pass with a byte cap;
 * they return numbers, ids and outcome tokens only, never message text.
 */
import type { Harness } from '../contracts/harness.js';
import type { Outcome } from '../contracts/observation.js';
import type { Usage } from '../contracts/usage.js';
import type { Env } from '../io/paths.js';

/** One API response, deduped within the file (Claude: message.id + requestId; Codex: response_id). */
export type TranscriptRequest = {
  key: string;
  model: string | null;
  usage: Usage;
  at: number | null;
  sessionId: string | null;
  agentId: string | null;
  sidechain: boolean;
  /** The child turn the response belongs to (Codex token_usage_record.turn_id), when the transcript says. */
  turnId?: string | null;
};

/** A subagent dispatch found in a parent transcript. */
export type TranscriptDispatch = {
  callId: string;
  sessionId: string | null;
  parentModel: string | null;
  requestedModel: string | null;
  subagentType: string | null;
  escalationFrom: string | null;
  /** The child's own id when the parent transcript names it (Codex SubAgentActivity.agent_thread_id). */
  childAgentId: string | null;
  at: number | null;
};

/** What a child transcript says about the child as a whole. */
export type ChildSummary = {
  agentId: string;
  /** From the sidecar (Claude agent-<id>.meta.json toolUseId) or null (Codex: learnt from the parent rollout). */
  callId: string | null;
  subagentType: string | null;
  requestedModel: string | null;
  /** Model of the most output tokens among the child's responses (what served it). */
  servedModel: string | null;
  usage: Usage | null;
  outcome: Outcome;
  /** The final response is written (Claude: a stop_reason; Codex: usage after the last turn_context). */
  complete: boolean;
  /** Some response carried only snapshot usage (Claude: stop_reason null on its last record). */
  incomplete: boolean;
  startedAt: number | null;
  endedAt: number | null;
  /** Set on a per-turn summary (FileParse.childTurns). */
  turnId?: string | null;
  /** The multiplier a harness that bills by request (descriptor requestBilling) billed the child at; absent elsewhere. */
  multiplier?: number | null;
  /**
   * servedModel is the model the harness was configured with, not one a response named (Hermes' state.db keeps the
   * configured name after tiergate corrected the child's requests): a served model already in the ledger wins.
   */
  modelAsConfigured?: boolean;
};

export type FileParse = {
  harness: Harness;
  sessionId: string | null;
  project: string | null;
  requests: TranscriptRequest[];
  dispatches: TranscriptDispatch[];
  child: ChildSummary | null;
  /**
   * The child's turns, each summarised on its own (Codex: a follow-up task is a new turn). When present the ledger
   * stores these, one row per turn, instead of `child`.
   */
  childTurns?: ChildSummary[];
  /** Every child a file holds, when it holds several (Copilot CLI's events.jsonl): the ledger stores one row each. */
  children?: ChildSummary[];
  bytesRead: number;
  truncated: boolean;
};

export type ParseOptions = { maxBytes?: number };

export interface TranscriptParser {
  readonly harness: Harness;
  /**
   * A child's file holds that child only, so each of its requests is the child's (Codex: a rollout is one thread).
   * Otherwise a request is the child's when its agentId is (Claude Code: sidechains in the session's file).
   */
  readonly oneChildPerFile?: boolean;
  parseFile(path: string, opts?: ParseOptions): FileParse;
  /**
   * What the harness keeps from a file it read, besides the ledger's rows (what its dispatch hook reprices with): called
   * by `tiergate scan` after each file it parses. Diagnoses its own failures.
   */
  learn?(parse: FileParse, env: Env): void;
}

export type StoreReadOptions = {
  /** Epoch ms: only children that started at or after it. */
  since?: number | null;
  /** At most this many children (the reader's own cap is the ceiling). */
  maxRows?: number;
  /** How long to wait on a lock the harness holds before giving up. */
  busyTimeoutMs?: number;
};

/**
 * A database of the harness's own that records its children (Hermes Agent's state.db), read by `tiergate scan` beside
 * the transcripts: one FileParse per parent session, numbers, ids and model names only, bounded. Throws when the store
 * cannot be read (refused, locked, damaged): the caller reports it once and goes on.
 */
export interface StoreReader {
  /** Where the store is, per the harness's documented environment variables. */
  paths(env: Env, home: string): string[];
  read(path: string, opts?: StoreReadOptions): FileParse[];
}

/** Sum requests into one usage record (requests counted), or null when there are none. */
export function sumUsage(requests: readonly { usage: Usage }[]): Usage | null {
  if (requests.length === 0) return null;
  const u: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 0 };
  for (const r of requests) {
    u.input += r.usage.input;
    u.output += r.usage.output;
    u.cacheRead += r.usage.cacheRead;
    u.cacheWrite5m += r.usage.cacheWrite5m;
    u.cacheWrite1h += r.usage.cacheWrite1h;
    u.reasoning += r.usage.reasoning;
    u.requests += r.usage.requests;
  }
  return u;
}

/** The model that produced the most output among the requests (ties: the later one). */
export function dominantModel(requests: readonly TranscriptRequest[]): string | null {
  const out = new Map<string, number>();
  for (const r of requests) if (r.model) out.set(r.model, (out.get(r.model) ?? 0) + r.usage.output + 1);
  let best: string | null = null;
  let bestN = -1;
  for (const [m, n] of out) if (n >= bestN) (best = m), (bestN = n);
  return best;
}

/** What a child's own lines say; what is not said is absent (null, false), and the rest is read off its requests. */
export type ChildFacts = Pick<ChildSummary, 'agentId' | 'outcome' | 'complete' | 'startedAt' | 'endedAt'> &
  Partial<Omit<ChildSummary, 'usage'>>;

/**
 * A child as its requests tell it: served by the model of the most output among them (else the model its lines named,
 * `facts.servedModel`), their usage summed. Every parser builds its children here, so a field means the same for all.
 */
export function childSummary(requests: readonly TranscriptRequest[], facts: ChildFacts): ChildSummary {
  return {
    callId: null,
    subagentType: null,
    requestedModel: null,
    incomplete: false,
    ...facts,
    servedModel: dominantModel(requests) ?? facts.servedModel ?? null,
    usage: sumUsage(requests),
  };
}

export const asString = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
export const asCount = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;

/**
 * One API response's usage where the input count includes the cache reads and writes and the output includes reasoning
 * (the OpenAI wire's prompt_tokens / completion_tokens: Codex's rollouts, Copilot's usage records under BYOK). Each
 * count goes through asCount; a write is taken as a 5-minute one (neither says otherwise).
 */
export function usageWithCacheInInput(c: {
  input: unknown;
  output: unknown;
  cacheRead: unknown;
  cacheWrite: unknown;
  reasoning: unknown;
}): Usage {
  const cacheRead = asCount(c.cacheRead);
  const cacheWrite = asCount(c.cacheWrite);
  return {
    input: Math.max(0, asCount(c.input) - cacheRead - cacheWrite),
    output: asCount(c.output),
    cacheRead,
    cacheWrite5m: cacheWrite,
    cacheWrite1h: 0,
    reasoning: asCount(c.reasoning),
    requests: 1,
  };
}
export function asTime(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}
