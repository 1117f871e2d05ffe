/**
 * Zod shapes of the Codex CLI hook payloads tiergate reads (seen on codex-cli 0.169.0, reference/codex.md §4).
 * Objects are loose: a newer Codex that adds fields must still parse; only what tiergate reads is required.
 */
import * as z from 'zod';

const base = {
  session_id: z.string(),
  transcript_path: z.string().nullish(),
  cwd: z.string().nullish(),
  hook_event_name: z.string(),
};

/** The spawn tool's name in hook payloads: namespace + name with no separator (0.169.0, multi-agent v2). */
export const SPAWN_TOOL_NAME = 'collaborationspawn_agent';

export const PreToolUsePayloadSchema = z.looseObject({
  ...base,
  turn_id: z.string().nullish(),
  /** The parent's (this thread's) active model at PreToolUse. */
  model: z.string().nullish(),
  permission_mode: z.string().nullish(),
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().nullish(),
});
export type PreToolUsePayload = z.infer<typeof PreToolUsePayloadSchema>;

export const PostToolUsePayloadSchema = PreToolUsePayloadSchema.extend({
  /** A JSON string, e.g. `{"task_name":"/root/demo_child"}`. */
  tool_response: z.unknown().optional(),
});
export type PostToolUsePayload = z.infer<typeof PostToolUsePayloadSchema>;

export const SubagentStartPayloadSchema = z.looseObject({
  ...base,
  turn_id: z.string().nullish(),
  /** The CHILD's model at SubagentStart (not the parent's). */
  model: z.string().nullish(),
  agent_id: z.string(),
  agent_type: z.string().nullish(),
});
export type SubagentStartPayload = z.infer<typeof SubagentStartPayloadSchema>;

export const SubagentStopPayloadSchema = SubagentStartPayloadSchema.extend({
  /** The child's rollout; `transcript_path` is the PARENT's at SubagentStop. */
  agent_transcript_path: z.string().nullish(),
  stop_hook_active: z.boolean().nullish(),
  last_assistant_message: z.string().nullish(),
});
export type SubagentStopPayload = z.infer<typeof SubagentStopPayloadSchema>;

export const SessionStartPayloadSchema = z.looseObject({
  ...base,
  model: z.string().nullish(),
  source: z.string().nullish(),
});
export type SessionStartPayload = z.infer<typeof SessionStartPayloadSchema>;

export const SessionEndPayloadSchema = z.looseObject({
  ...base,
  reason: z.string().nullish(),
});
export type SessionEndPayload = z.infer<typeof SessionEndPayloadSchema>;
