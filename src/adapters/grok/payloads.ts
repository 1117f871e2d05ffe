/**
 * The parts of Grok Build 1.0.41's hook stdin tiergate reads (every field seen, test/fixtures/grok). Each envelope
 * carries its camelCase keys (`hookEventName: "pre_tool_use"`, `sessionId`, `toolInput`, …) and Claude-compatible
 * snake_case copies (`hook_event_name: "PreToolUse"`, …): tiergate reads the camelCase ones. Loose objects: a newer
 * Grok that adds fields still parses.
 */
import * as z from 'zod/mini';

const common = {
  hookEventName: z.string(),
  /** The session the event fires in: a child's own id in its SubagentStop and SessionEnd. */
  sessionId: z.string(),
  cwd: z.optional(z.string()),
  workspaceRoot: z.optional(z.string()),
  /** The session's updates.jsonl, in its session folder (absent on SessionStart). */
  transcriptPath: z.optional(z.string()),
};

/** The dispatch hook checks it without zod: dispatch-payload.ts. */
export const PreToolUsePayloadSchema = z.looseObject({
  ...common,
  toolName: z.string(),
  toolInput: z.record(z.string(), z.unknown()),
  toolUseId: z.optional(z.string()),
});
export type PreToolUsePayload = z.infer<typeof PreToolUsePayloadSchema>;

/**
 * PostToolUse on spawn_subagent, in the parent: `toolResult` is `{type: "SubagentCompleted", output, subagent_id, …}`
 * for a blocking spawn, `{type: "Text", text: "Subagent started in background.\nsubagent_id: <id>…"}` for one in the
 * background (it fires before that child ends).
 */
export const PostToolUsePayloadSchema = z.looseObject({
  ...common,
  toolName: z.string(),
  toolInput: z.optional(z.record(z.string(), z.unknown())),
  toolUseId: z.optional(z.string()),
  toolResult: z.optional(z.unknown()),
});
export type PostToolUsePayload = z.infer<typeof PostToolUsePayloadSchema>;

/** SubagentStop: sessionId and transcriptPath are the CHILD's; the parent is not named. No model, no tokens. */
export const SubagentStopPayloadSchema = z.looseObject({
  ...common,
  subagentId: z.optional(z.string()),
  subagentType: z.optional(z.string()),
  /** The child's final text: only its outcome tokens are kept. */
  lastAssistantMessage: z.optional(z.string()),
});
export type SubagentStopPayload = z.infer<typeof SubagentStopPayloadSchema>;

/** SessionStart / SessionEnd; a child's SessionEnd carries its `subagentType`. */
export const SessionPayloadSchema = z.looseObject({
  ...common,
  reason: z.optional(z.string()),
  source: z.optional(z.string()),
  subagentType: z.optional(z.string()),
});
