/**
 * BeforeTool as Gemini CLI's dispatch hook reads it: a hand-written guard over the fields the dispatch path reads, with
 * the verdicts of BeforeToolPayloadSchema (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/gemini/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { nullishString, payloadObject, requireRecord, requireString } from '../../contracts/payload-guard.js';
import type { BeforeToolPayload } from './payloads.js';

/** The one tool every subagent dispatch goes through (0.61.0: one generic tool, the agent named in agent_name). */
export const DISPATCH_TOOL = 'invoke_agent';

/** The fields the dispatch path reads: the type below allows no other, the test picks these from the schema. */
export const DISPATCH_FIELDS = ['session_id', 'transcript_path', 'cwd', 'tool_name', 'tool_input'] as const;
export type DispatchPayload = Pick<BeforeToolPayload, (typeof DISPATCH_FIELDS)[number]>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export function readBeforeTool(raw: unknown): DispatchPayload {
  const p = payloadObject(raw);
  requireString(p, 'tool_name');
  requireString(p, 'session_id');
  requireRecord(p, 'tool_input');
  for (const k of ['transcript_path', 'cwd']) nullishString(p, k);
  return p as DispatchPayload;
}
