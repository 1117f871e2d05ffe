/**
 * PreToolUse as Grok Build's dispatch hook reads it: a guard table over the fields the dispatch path reads, with
 * the verdicts of PreToolUsePayloadSchema (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/grok/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { guardSpec, payloadGuard } from '../../contracts/payload-guard.js';
import type { PreToolUsePayload } from './payloads.js';

/** The subagent tool (1.0.41; a hooks-file matcher `Task` aliases to it). */
export const DISPATCH_TOOL = 'spawn_subagent';

/**
 * The fields the dispatch path reads and the check the schema makes of each: the test reads this table off
 * PreToolUsePayload picked to them. The type below allows no other field.
 */
export const DISPATCH_CHECKS = guardSpec({
  string: ['hookEventName', 'sessionId', 'toolName'],
  record: ['toolInput'],
  'optional string': ['cwd', 'transcriptPath', 'toolUseId'],
});
export const DISPATCH_FIELDS = Object.keys(DISPATCH_CHECKS) as readonly (keyof typeof DISPATCH_CHECKS)[];
export type DispatchPayload = Pick<PreToolUsePayload, keyof typeof DISPATCH_CHECKS>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export const readPreToolUse = payloadGuard<DispatchPayload>(DISPATCH_CHECKS);
