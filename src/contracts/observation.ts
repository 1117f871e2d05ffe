import * as z from 'zod/mini';
import { CapabilitySchema, HarnessSchema, TierSchema } from './harness.js';
import { UsageSchema } from './usage.js';

/** A value a correction or a retry may name (a model alias, an agent), with the model it runs on and its tier. */
export const CandidateSchema = z.object({ value: z.string(), model: z.string(), tier: z.nullable(TierSchema) });
export type Candidate = z.infer<typeof CandidateSchema>;

/**
 * The one document every native payload is turned into. Adapters produce it; the engine and the observer consume it.
 * Fields a harness does not provide are null, never guessed.
 */
export const DispatchObservationSchema = z.object({
  kind: z.literal('dispatch'),
  harness: HarnessSchema,
  sessionId: z.nullable(z.string()),
  /** The harness's id for this dispatch (Claude tool_use_id, Codex call id, OpenCode callID, pi toolCallId). */
  callId: z.nullable(z.string()),
  /** The parent's model as the harness names it (full id, alias or provider/model), or null when unknown. */
  parentModel: z.nullable(z.string()),
  /** Where parentModel came from, for diagnostics: payload, transcript-tail, chat.params, ctx.model, … */
  parentModelSource: z.nullable(z.string()),
  /** The child's model as requested (model id/alias), null when the dispatch names none. */
  requestedModel: z.nullable(z.string()),
  /** The agent / profile / subagent_type requested, when the harness dispatches by agent. */
  requestedAgent: z.nullable(z.string()),
  /** A tier, when the request names one directly (a tier agent or `tier:` prefix). */
  requestedTier: z.nullable(TierSchema),
  /**
   * The model the harness itself runs this child on when the call names none and it does not simply inherit the
   * parent: the named agent definition's `model:` (or a harness-level default that beats inheritance), read by the
   * adapter from the live config. Null when the child inherits the parent's model or the adapter cannot tell.
   */
  agentModel: z.nullable(z.string()),
  /** Where agentModel was read (an agent file's path, `opencode.json agent.<name>`, pi's settings default, …). */
  agentModelFrom: z.optional(z.nullable(z.string())),
  subagentType: z.nullable(z.string()),
  capability: CapabilitySchema,
  /**
   * Legal values the correction may choose from, each with the model it runs on, when the adapter knows them from the
   * live harness config (OpenCode/pi agents). When absent the engine derives them from the policy's tier map.
   */
  candidates: z.optional(z.array(CandidateSchema)),
  /** The original tool input, verbatim: a correction must carry the whole input (Claude rejects partial ones). */
  toolInput: z.record(z.string(), z.unknown()),
  cwd: z.nullable(z.string()),
  /** Escalation tier named in the brief (`Escalation from <tier>:`), if any. */
  escalationFrom: z.nullable(z.string()),
  /** Epoch ms, supplied by the caller (the engine has no clock). */
  at: z.number(),
  /**
   * The whole session's cost so far (parent and children, USD decimal) as the harness itself reports it in process:
   * Claude Code's hooks module ($.session.usage), OpenCode (its messages' cost), pi (its session entries' cost). Only
   * read when a `budgets.sessionTotal` is set; absent everywhere else.
   */
  sessionCostUsd: z.optional(z.nullable(z.string())),
  /**
   * Someone can answer a permission prompt the harness raises for this dispatch (issue 33 item 3): the harness has a
   * prompt a hook can raise, and this run is not headless, by a signal its adapter read (Claude Code 2.1.332:
   * CLAUDE_CODE_SESSION_ATTENDED=1; docs/policy.md "Ask instead of deny"). Absent or false: an `ask` policy acts as its
   * non-ask action.
   */
  canAsk: z.optional(z.boolean()),
});
export type DispatchObservation = z.infer<typeof DispatchObservationSchema>;

export const OutcomeSchema = z.object({
  /** Token after `Result:` (e.g. done, partial, failed), lower-cased, ≤ 32 chars; null when absent. */
  result: z.nullable(z.string()),
  /** Token after `Verified:` (e.g. yes, no, tests), lower-cased, ≤ 32 chars; null when absent. */
  verified: z.nullable(z.string()),
  /** Tier named by an `Escalation from <tier>:` header. */
  escalationFrom: z.nullable(z.string()),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

export const CompletionObservationSchema = z.object({
  kind: z.literal('completion'),
  harness: HarnessSchema,
  sessionId: z.nullable(z.string()),
  callId: z.nullable(z.string()),
  /** The child's own id (Claude agentId, Codex thread id, OpenCode child session id). */
  agentId: z.nullable(z.string()),
  subagentType: z.nullable(z.string()),
  /** The model the API actually served, from the child's own records; null when not (yet) readable. */
  servedModel: z.nullable(z.string()),
  usage: z.nullable(UsageSchema),
  /** ok | error | cancelled | pending (transcript not flushed yet) | unknown */
  status: z.enum(['ok', 'error', 'cancelled', 'pending', 'unknown']),
  outcome: OutcomeSchema,
  startedAt: z.nullable(z.number()),
  endedAt: z.number(),
  /** Where usage came from: module, sdk, tool-result, transcript-tail, scan, none. */
  usageSource: z.string(),
  /** Dedupe keys (message ids / request ids) already summed, so a rescan never double-counts. */
  dedupeKey: z.nullable(z.string()),
  /**
   * The child's turn when one child runs several (Codex: a follow-up task to a spawned agent is a new turn with its own
   * SubagentStop): each turn is its own ledger row. Absent in spool lines written before it existed.
   */
  turnId: z.optional(z.nullable(z.string())),
  /**
   * The multiplier a harness that bills by request (its descriptor's requestBilling) reported for the child's requests.
   * Absent where it bills by token, and in spool lines written before it existed.
   */
  multiplier: z.optional(z.nullable(z.number())),
});
export type CompletionObservation = z.infer<typeof CompletionObservationSchema>;
