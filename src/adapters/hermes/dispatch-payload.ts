/**
 * What tiergate's Hermes plugin (hermes/tiergate/__init__.py) writes on the dispatch hook's stdin for a
 * `pre_tool_call` on `delegate_task`: Hermes 0.19.0's own kwargs (tool_name, args, session_id, tool_call_id) plus what
 * the plugin tracked or read itself, as Hermes passes neither: the parent's model (on_session_start /
 * post_api_request) and config.yaml's `delegation` block. A hand-written guard so the dispatch bundle carries no zod.
 */
import { nullishString, payloadObject, requireRecord, requireString } from '../../contracts/payload-guard.js';

/** Hermes 0.19.0's subagent tool. */
export const DISPATCH_TOOL = 'delegate_task';

export type HermesDispatchPayload = {
  hook_event_name: string;
  session_id: string;
  tool_name: string;
  args: Record<string, unknown>;
  tool_call_id?: string | null;
  cwd?: string | null;
  /** The parent session's model as the plugin last saw it; absent when it saw none yet. */
  parent_model?: string | null;
  /** config.yaml `delegation.model`, when set. */
  delegation_model?: string | null;
  /** config.yaml `delegation.base_url` or `delegation.provider` is set: the child talks to another endpoint. */
  delegation_endpoint?: string | null;
};

/** Throws PayloadError (the field, never its value) on a payload the plugin would not write. */
export function readDispatch(raw: unknown): HermesDispatchPayload {
  const p = payloadObject(raw);
  requireString(p, 'hook_event_name');
  requireString(p, 'session_id');
  requireString(p, 'tool_name');
  requireRecord(p, 'args');
  for (const k of ['tool_call_id', 'cwd', 'parent_model', 'delegation_model', 'delegation_endpoint'])
    nullishString(p, k);
  return p as HermesDispatchPayload;
}
