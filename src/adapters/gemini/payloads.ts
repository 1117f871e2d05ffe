/**
 * The parts of Gemini CLI's hook stdin tiergate reads (0.61.0, reference/gemini-cli.md §4, every field seen). Common
 * keys: session_id, transcript_path, cwd, hook_event_name, timestamp. A child's own events carry the parent's
 * session_id and transcript_path and no agent id; only BeforeTool/AfterTool on `invoke_agent` are read for dispatches.
 * Loose objects: a later Gemini CLI that adds keys still parses.
 */
import * as z from 'zod/mini';

const common = {
  session_id: z.string(),
  transcript_path: z.nullish(z.string()),
  cwd: z.nullish(z.string()),
  hook_event_name: z.string(),
};

/** BeforeTool: the dispatch hook's payload, checked there without zod (dispatch-payload.ts). */
export const BeforeToolPayloadSchema = z.looseObject({
  ...common,
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
});
export type BeforeToolPayload = z.infer<typeof BeforeToolPayloadSchema>;

/**
 * AfterTool on invoke_agent: `tool_input` is the input that ran (the rewritten one after a correction, seen);
 * `tool_response.returnDisplay` carries the child's agent id as the prefix of `recentActivity[].id` (before `#`),
 * its state and terminate reason. No model and no usage (seen): those are in the child's chat file.
 */
export const AfterToolPayloadSchema = z.looseObject({
  ...common,
  tool_name: z.string(),
  tool_input: z.optional(z.record(z.string(), z.unknown())),
  tool_response: z.optional(z.unknown()),
});

/** SessionStart (`source`) and SessionEnd (`reason`). */
export const SessionPayloadSchema = z.looseObject({
  ...common,
  source: z.nullish(z.string()),
  reason: z.nullish(z.string()),
});
