/**
 * What tiergate's Hermes plugin (hermes/tiergate/__init__.py) writes on the dispatch hook's stdin for a `pre_tool_call`
 * on `delegate_task`: Hermes 0.19.0's own kwargs (tool_name, args, session_id, tool_call_id) plus what the plugin
 * tracked or read itself, as Hermes passes neither: the parent's model (on_session_start / post_api_request) and
 * config.yaml's `delegation` block. Loose: a newer plugin that adds fields still parses.
 */
import * as z from 'zod/mini';

/** The dispatch hook checks it without zod: dispatch-payload.ts. */
export const DispatchPayloadSchema = z.looseObject({
  hook_event_name: z.string(),
  session_id: z.string(),
  tool_name: z.string(),
  args: z.record(z.string(), z.unknown()),
  tool_call_id: z.nullish(z.string()),
  cwd: z.nullish(z.string()),
  /** The parent session's model as the plugin last saw it; absent when it saw none yet. */
  parent_model: z.nullish(z.string()),
  /** config.yaml `delegation.model`, when set. */
  delegation_model: z.nullish(z.string()),
  /** config.yaml `delegation.base_url` or `delegation.provider` is set: the child talks to another endpoint. */
  delegation_endpoint: z.nullish(z.string()),
});
export type DispatchPayload = z.infer<typeof DispatchPayloadSchema>;
