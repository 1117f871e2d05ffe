/**
 * PreToolUse as Claude Code's dispatch hook reads it: a hand-written guard over the fields the dispatch path reads, with
 * the verdicts of PreToolUsePayload (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/claude/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { optionalString, payloadObject, requireRecord, requireString } from '../../contracts/payload-guard.js';
import type { PreToolUsePayload } from './payloads.js';

/** The subagent tool: `Agent` on 2.1.328; `Task` on older builds and reportedly some later ones (#95769). */
export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['Agent', 'Task']);

/** The fields the dispatch path reads: the type below allows no other, the test picks these from the schema. */
export const DISPATCH_FIELDS = [
  'session_id',
  'transcript_path',
  'cwd',
  'agent_id',
  'tool_name',
  'tool_input',
  'tool_use_id',
] as const;
export type DispatchPayload = Pick<PreToolUsePayload, (typeof DISPATCH_FIELDS)[number]>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export function readPreToolUse(raw: unknown): DispatchPayload {
  const p = payloadObject(raw);
  requireString(p, 'tool_name');
  requireRecord(p, 'tool_input');
  for (const k of ['session_id', 'transcript_path', 'cwd', 'agent_id', 'tool_use_id']) optionalString(p, k);
  return p as DispatchPayload;
}
