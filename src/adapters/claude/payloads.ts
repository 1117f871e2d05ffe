/**
 * The parts of Claude Code's command-hook stdin tiergate reads (2.1.328, reference/claude-code.md §4). Loose objects:
 * unknown keys pass through, so a new harness version that adds fields still parses.
 */
import * as z from 'zod/mini';

const common = {
  session_id: z.optional(z.string()),
  transcript_path: z.optional(z.string()),
  cwd: z.optional(z.string()),
  hook_event_name: z.string(),
  /** Set when the event fires inside a subagent (public fixture, 2.1.296). */
  agent_id: z.optional(z.string()),
  agent_type: z.optional(z.string()),
};

/** The dispatch hook checks it without zod: dispatch-payload.ts. */
export const PreToolUsePayload = z.looseObject({
  ...common,
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.optional(z.string()),
});
export type PreToolUsePayload = z.infer<typeof PreToolUsePayload>;

export const PostToolUsePayload = z.looseObject({
  ...common,
  tool_name: z.string(),
  tool_input: z.optional(z.record(z.string(), z.unknown())),
  tool_response: z.unknown(),
  tool_use_id: z.optional(z.string()),
});
export type PostToolUsePayload = z.infer<typeof PostToolUsePayload>;

export const SubagentStartPayload = z.looseObject({ ...common });
export type SubagentStartPayload = z.infer<typeof SubagentStartPayload>;

export const SubagentStopPayload = z.looseObject({
  ...common,
  agent_transcript_path: z.optional(z.string()),
  last_assistant_message: z.optional(z.string()),
});
export type SubagentStopPayload = z.infer<typeof SubagentStopPayload>;

export const SessionPayload = z.looseObject({
  ...common,
  source: z.optional(z.string()),
  reason: z.optional(z.string()),
});
export type SessionPayload = z.infer<typeof SessionPayload>;
