/**
 * BeforeTool as Gemini CLI's dispatch hook reads it: a guard table over the fields the dispatch path reads, with
 * the verdicts of BeforeToolPayloadSchema (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/gemini/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { guardSpec, payloadGuard } from '../../contracts/payload-guard.js';
import type { BeforeToolPayload } from './payloads.js';

/** The one tool every subagent dispatch goes through (0.61.0: one generic tool, the agent named in agent_name). */
export const DISPATCH_TOOL = 'invoke_agent';

/**
 * The fields the dispatch path reads and the check the schema makes of each: the test reads this table off
 * BeforeToolPayload picked to them. The type below allows no other field.
 */
export const DISPATCH_CHECKS = guardSpec({
  string: ['tool_name', 'session_id'],
  record: ['tool_input'],
  'nullish string': ['transcript_path', 'cwd'],
});
export const DISPATCH_FIELDS = Object.keys(DISPATCH_CHECKS) as readonly (keyof typeof DISPATCH_CHECKS)[];
export type DispatchPayload = Pick<BeforeToolPayload, keyof typeof DISPATCH_CHECKS>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export const readBeforeTool = payloadGuard<DispatchPayload>(DISPATCH_CHECKS);
