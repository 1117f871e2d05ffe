/**
 * PreToolUse as Codex's dispatch hook reads it: a hand-written guard over the fields the dispatch path reads, with the
 * verdicts of PreToolUsePayloadSchema (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/codex/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { nullishString, payloadObject, requireRecord, requireString } from '../../contracts/payload-guard.js';
import type { PreToolUsePayload } from './payloads.js';

/** The spawn tool's name in hook payloads: namespace + name with no separator (0.169.0, multi-agent v2). */
export const SPAWN_TOOL_NAME = 'collaborationspawn_agent';

/** The fields the dispatch path reads: the type below allows no other, the test picks these from the schema. */
export const DISPATCH_FIELDS = ['session_id', 'cwd', 'model', 'tool_name', 'tool_input', 'tool_use_id'] as const;
export type DispatchPayload = Pick<PreToolUsePayload, (typeof DISPATCH_FIELDS)[number]>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export function readPreToolUse(raw: unknown): DispatchPayload {
  const p = payloadObject(raw);
  requireString(p, 'tool_name');
  requireString(p, 'session_id');
  requireRecord(p, 'tool_input');
  for (const k of ['cwd', 'model', 'tool_use_id']) nullishString(p, k);
  return p as DispatchPayload;
}
