/**
 * PreToolUse as Grok Build's dispatch hook reads it: a hand-written guard over the fields the dispatch path reads, with
 * the verdicts of PreToolUsePayloadSchema (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/grok/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { optionalString, payloadObject, requireRecord, requireString } from '../../contracts/payload-guard.js';
import type { PreToolUsePayload } from './payloads.js';

/** The subagent tool (1.0.41; a hooks-file matcher `Task` aliases to it). */
export const DISPATCH_TOOL = 'spawn_subagent';

/** The fields the dispatch path reads: the type below allows no other, the test picks these from the schema. */
export const DISPATCH_FIELDS = [
  'hookEventName',
  'sessionId',
  'cwd',
  'transcriptPath',
  'toolName',
  'toolInput',
  'toolUseId',
] as const;
export type DispatchPayload = Pick<PreToolUsePayload, (typeof DISPATCH_FIELDS)[number]>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export function readPreToolUse(raw: unknown): DispatchPayload {
  const p = payloadObject(raw);
  requireString(p, 'hookEventName');
  requireString(p, 'sessionId');
  requireString(p, 'toolName');
  requireRecord(p, 'toolInput');
  for (const k of ['cwd', 'transcriptPath', 'toolUseId']) optionalString(p, k);
  return p as DispatchPayload;
}
