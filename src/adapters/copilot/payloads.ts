/**
 * The parts of GitHub Copilot CLI's camelCase command-hook stdin tiergate reads (1.0.102, reference/copilot-cli.md §4,
 * every field seen). Loose objects: a newer Copilot that adds fields still parses.
 */
import * as z from 'zod/mini';

const common = {
  /** The root session's id; inside a child, the child's agent id (its own events carry agentId and parentAgentId). */
  sessionId: z.string(),
  /** Epoch ms. */
  timestamp: z.optional(z.number()),
  cwd: z.optional(z.string()),
  /** Set when the event fires inside a subagent. */
  agentId: z.optional(z.string()),
  agentType: z.optional(z.string()),
  parentAgentId: z.optional(z.string()),
};

/** The dispatch hook checks it without zod: dispatch-payload.ts. */
export const PreToolUsePayloadSchema = z.looseObject({
  ...common,
  toolName: z.string(),
  /** An object on 1.0.102 (seen); the SDK types call it `unknown`. */
  toolArgs: z.record(z.string(), z.unknown()),
});
export type PreToolUsePayload = z.infer<typeof PreToolUsePayloadSchema>;

/** subagentStart / subagentStop: the PARENT's sessionId, the child's agentId; no model and no usage (seen). */
export const SubagentStopPayloadSchema = z.looseObject({
  ...common,
  agentId: z.string(),
  transcriptPath: z.optional(z.string()),
  agentName: z.optional(z.string()),
  /** The child's last message: only its outcome tokens are kept. */
  response: z.optional(z.string()),
  stopReason: z.optional(z.string()),
});
export type SubagentStopPayload = z.infer<typeof SubagentStopPayloadSchema>;

export const SessionPayloadSchema = z.looseObject({
  ...common,
  source: z.optional(z.string()),
  reason: z.optional(z.string()),
});
