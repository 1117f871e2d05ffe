/**
 * PreToolUse as Codex's dispatch hook reads it: a guard table over the fields the dispatch path reads, with the
 * verdicts of PreToolUsePayloadSchema (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/codex/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { guardSpec, payloadGuard } from '../../contracts/payload-guard.js';
import type { PreToolUsePayload } from './payloads.js';

/** The spawn tool's name in hook payloads: namespace + name with no separator (0.169.0, multi-agent v2). */
export const SPAWN_TOOL_NAME = 'collaborationspawn_agent';

/**
 * The fields the dispatch path reads and the check the schema makes of each: the test reads this table off
 * PreToolUsePayload picked to them. The type below allows no other field.
 */
export const DISPATCH_CHECKS = guardSpec({
  string: ['tool_name', 'session_id'],
  record: ['tool_input'],
  'nullish string': ['cwd', 'model', 'tool_use_id'],
});
export const DISPATCH_FIELDS = Object.keys(DISPATCH_CHECKS) as readonly (keyof typeof DISPATCH_CHECKS)[];
export type DispatchPayload = Pick<PreToolUsePayload, keyof typeof DISPATCH_CHECKS>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export const readPreToolUse = payloadGuard<DispatchPayload>(DISPATCH_CHECKS);
