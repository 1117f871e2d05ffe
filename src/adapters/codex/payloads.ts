/**
 * Zod shapes of the Codex CLI hook payloads tiergate reads (seen on codex-cli 0.169.0, reference/codex.md §4).
 * Objects are loose: a newer Codex that adds fields must still parse; only what tiergate reads is required.
 */
import * as z from 'zod/mini';

const base = {
  session_id: z.string(),
  transcript_path: z.nullish(z.string()),
  cwd: z.nullish(z.string()),
  hook_event_name: z.string(),
};

/** The dispatch hook checks it without zod: dispatch-payload.ts. */
export const PreToolUsePayloadSchema = z.looseObject({
  ...base,
  turn_id: z.nullish(z.string()),
  /** The parent's (this thread's) active model at PreToolUse. */
  model: z.nullish(z.string()),
  permission_mode: z.nullish(z.string()),
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.nullish(z.string()),
});
export type PreToolUsePayload = z.infer<typeof PreToolUsePayloadSchema>;

export const SubagentStartPayloadSchema = z.looseObject({
  ...base,
  turn_id: z.nullish(z.string()),
  /** The CHILD's model at SubagentStart (not the parent's). */
  model: z.nullish(z.string()),
  agent_id: z.string(),
  agent_type: z.nullish(z.string()),
});

export const SubagentStopPayloadSchema = z.extend(SubagentStartPayloadSchema, {
  /** The child's rollout; `transcript_path` is the PARENT's at SubagentStop. */
  agent_transcript_path: z.nullish(z.string()),
  stop_hook_active: z.nullish(z.boolean()),
  last_assistant_message: z.nullish(z.string()),
});
export type SubagentStopPayload = z.infer<typeof SubagentStopPayloadSchema>;

export const SessionStartPayloadSchema = z.looseObject({
  ...base,
  model: z.nullish(z.string()),
  source: z.nullish(z.string()),
});

export const SessionEndPayloadSchema = z.looseObject({
  ...base,
  reason: z.nullish(z.string()),
});
