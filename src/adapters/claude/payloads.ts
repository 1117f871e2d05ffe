/**
 * The parts of Claude Code's command-hook stdin tiergate reads (2.1.328, reference/claude-code.md §4). Loose objects:
 * unknown keys pass through, so a new harness version that adds fields still parses.
 */
import * as z from 'zod';

const common = {
  session_id: z.string().optional(),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string(),
  /** Set when the event fires inside a subagent (public fixture, 2.1.296). */
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
};

export const PreToolUsePayload = z.looseObject({
  ...common,
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().optional(),
});
export type PreToolUsePayload = z.infer<typeof PreToolUsePayload>;

export const PostToolUsePayload = z.looseObject({
  ...common,
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()).optional(),
  tool_response: z.unknown(),
  tool_use_id: z.string().optional(),
});
export type PostToolUsePayload = z.infer<typeof PostToolUsePayload>;

export const SubagentStartPayload = z.looseObject({ ...common });
export type SubagentStartPayload = z.infer<typeof SubagentStartPayload>;

export const SubagentStopPayload = z.looseObject({
  ...common,
  agent_transcript_path: z.string().optional(),
  last_assistant_message: z.string().optional(),
});
export type SubagentStopPayload = z.infer<typeof SubagentStopPayload>;

export const SessionPayload = z.looseObject({ ...common, source: z.string().optional(), reason: z.string().optional() });
export type SessionPayload = z.infer<typeof SessionPayload>;

/** The subagent tool: `Agent` on 2.1.328; `Task` on older builds and reportedly some later ones (#95769). */
export const SUBAGENT_TOOLS = new Set(['Agent', 'Task']);
